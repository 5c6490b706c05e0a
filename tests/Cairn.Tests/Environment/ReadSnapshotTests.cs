using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>
/// Read transactions reuse pooled parts: a transaction, tree or cursor kept past its end throws
/// <see cref="ObjectDisposedException"/>, never reads the snapshot its parts serve next.
/// </summary>
public sealed class ReadSnapshotTests : IDisposable
{
    private readonly TestDirectory _dir = new("read-snapshot");
    private readonly StorageEnvironment _env;

    public ReadSnapshotTests()
    {
        _env = StorageEnvironment.Open(new StorageOptions(_dir.Path));
        Put("k"u8, "one"u8);
    }

    public void Dispose()
    {
        _env.Dispose();
        _dir.Dispose();
    }

    [Fact]
    public void A_snapshot_reads_its_state_and_not_later_commits()
    {
        using var snapshot = _env.BeginReadSnapshot();
        Put("k"u8, "two"u8);
        Assert.Equal("one"u8.ToArray(), snapshot.OpenTree("t").Get("k"u8));
        Assert.Equal(_env.LastCommittedTransactionId - 1, snapshot.TransactionId);
        Assert.Equal(["t"], snapshot.GetTreeNames());
        Assert.False(snapshot.TryOpenTree("absent", out _));
        Assert.Throws<TreeNotFoundException>(() => snapshot.OpenTree("absent"));
    }

    [Fact]
    public void A_disposed_snapshot_and_its_copies_throw_even_once_its_parts_serve_a_newer_one()
    {
        var snapshot = _env.BeginReadSnapshot();
        var copy = snapshot;
        var tree = snapshot.OpenTree("t");
        var cursor = tree.CreateCursor();
        Assert.True(cursor.SeekFirst());
        snapshot.Dispose();
        Put("k"u8, "two"u8);

        // Same thread: the next snapshot gets the parts the first one gave back.
        using var next = _env.BeginReadSnapshot();
        Assert.Equal("two"u8.ToArray(), next.OpenTree("t").Get("k"u8));

        Assert.True(copy.IsDisposed);
        Assert.Throws<ObjectDisposedException>(() => copy.OpenTree("t"));
        Assert.Throws<ObjectDisposedException>(() => copy.TransactionId);
        Assert.Throws<ObjectDisposedException>(() => tree.Get("k"u8));
        Assert.Throws<ObjectDisposedException>(() => tree.Count);
        Assert.Throws<ObjectDisposedException>(() => cursor.MoveNext());
        Assert.Throws<ObjectDisposedException>(() => cursor.SeekFirst());
        // Disposing a stale copy does nothing: the live snapshot on the same parts goes on.
        copy.Dispose();
        Assert.False(next.IsDisposed);
        Assert.Equal("two"u8.ToArray(), next.OpenTree("t").Get("k"u8));
    }

    [Fact]
    public void A_disposed_ReadTransaction_throws_once_its_parts_serve_another_transaction()
    {
        var tx = _env.BeginRead();
        var tree = tx.OpenTree("t");
        tx.Dispose();
        Put("k"u8, "two"u8);
        using var next = _env.BeginRead();
        Assert.Equal("two"u8.ToArray(), next.OpenTree("t").Get("k"u8));

        Assert.True(tx.IsDisposed);
        Assert.Throws<ObjectDisposedException>(() => tx.OpenTree("t"));
        Assert.Throws<ObjectDisposedException>(() => tree.Get("k"u8));
        tx.Dispose();
        Assert.False(next.IsDisposed);
    }

    [Fact]
    public void A_tree_kept_from_a_committed_write_transaction_throws()
    {
        Tree kept;
        using (var tx = _env.BeginWrite())
        {
            kept = tx.OpenTree("t");
            kept.Put("x"u8, "y"u8);
            tx.Commit();
        }
        Assert.Throws<ObjectDisposedException>(() => kept.Get("x"u8));
        Assert.Throws<ObjectDisposedException>(() => kept.Put("x"u8, "z"u8));
    }

    [Fact]
    public async Task A_tree_an_operation_kept_from_the_merger_throws_once_its_batch_is_done()
    {
        // Many times: the caller comes back from its await on another thread, racing the merger, which once ended
        // the transaction only when it reused the batch's slot (the caller's read then went through).
        for (int n = 0; n < 200; n++)
        {
            var kept = await _env.WriteAsync(n, static (tx, n) => { tx.OpenTree("t").Put("k"u8, BitConverter.GetBytes(n)); return tx.OpenTree("t"); });
            Assert.Throws<ObjectDisposedException>(() => kept.Get("k"u8));
        }
    }

    [Fact]
    public void A_snapshot_tree_is_read_only()
    {
        using var snapshot = _env.BeginReadSnapshot();
        var tree = snapshot.OpenTree("t");
        Assert.Throws<ReadOnlyTransactionException>(() => tree.Put("a"u8, "b"u8));
    }

    [Fact]
    public void A_default_snapshot_was_never_begun()
    {
        ReadSnapshot none = default;
        Assert.False(none.IsDisposed);
        var thrown = Assert.Throws<InvalidOperationException>(() => none.OpenTree("t"));
        Assert.Contains("StorageEnvironment.BeginReadSnapshot()", thrown.Message);
        Assert.Throws<InvalidOperationException>(() => none.TransactionId);
        Assert.Throws<InvalidOperationException>(() => none.GetTreeNames());
        none.Dispose();
    }

    [Fact]
    public void An_open_snapshot_keeps_the_environment_from_closing()
    {
        var snapshot = _env.BeginReadSnapshot();
        Assert.Throws<LiveTransactionsException>(() => _env.Dispose());
        snapshot.Dispose();
    }

    [Fact]
    public async Task Snapshots_on_many_threads_each_see_whole_commits()
    {
        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            for (int i = 0; i < 200; i++)
            {
                using var tx = _env.BeginWrite();
                var t = tx.OpenTree("t");
                t.Put("a"u8, BitConverter.GetBytes(i));
                t.Put("b"u8, BitConverter.GetBytes(i));
                tx.Commit();
            }
            stop.Cancel();
        });
        var readers = Enumerable.Range(0, 3).Select(_ => Task.Run(() =>
        {
            int reads = 0;
            while (!stop.IsCancellationRequested || reads == 0)
            {
                using var snapshot = _env.BeginReadSnapshot();
                var t = snapshot.OpenTree("t");
                Assert.Equal(t.Get("a"u8), t.Get("b"u8));
                reads++;
            }
        })).ToArray();
        await writer;
        await Task.WhenAll(readers);
    }

    private void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        using var tx = _env.BeginWrite();
        tx.CreateTree("t").Put(key, value);
        tx.Commit();
    }
}
