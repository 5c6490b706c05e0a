using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Merger;

/// <summary>The blocking <c>Write</c>: durable on return, errors thrown on the caller's thread, as <c>WriteAsync</c>'s are.</summary>
[Collection(NativeFaultCollection.Name)]
public sealed class BlockingWriteTests : IDisposable
{
    private const int EIO = 5;
    private readonly TestDirectory _dir = new("blocking-write");
    private readonly StorageEnvironment _env;

    public BlockingWriteTests() => _env = StorageEnvironment.Open(new StorageOptions(_dir.Path));

    public void Dispose()
    {
        PalFaultInjection.Disarm();
        try
        {
            _env.Dispose();
        }
        catch (IOException)
        {
            // The failed environment's last flush may fail too; its files are released all the same.
        }
        _dir.Dispose();
    }

    [Fact]
    public void Write_returns_once_committed_with_the_operations_result()
    {
        _env.Write("v1"u8.ToArray(), static (tx, value) => tx.CreateTree("t").Put("k"u8, value));
        long id = _env.LastCommittedTransactionId;
        long count = _env.Write(0, static (tx, _) => tx.OpenTree("t").Count);
        Assert.Equal(1, count);
        using var snapshot = _env.BeginReadSnapshot();
        Assert.True(snapshot.TransactionId >= id);
        Assert.Equal("v1"u8.ToArray(), snapshot.OpenTree("t").Get("k"u8));
    }

    [Fact]
    public void Writes_from_many_threads_all_commit()
    {
        const int threads = 8, perThread = 50;
        _env.Write(0, static (tx, _) => tx.CreateTree("t"));
        var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            for (int i = 0; i < perThread; i++)
                _env.Write(Bytes.Key(t * 1000 + i), static (tx, key) => tx.OpenTree("t").Put(key, key));
        })).ToArray();
        foreach (var worker in workers)
            worker.Start();
        foreach (var worker in workers)
            worker.Join();
        using var snapshot = _env.BeginReadSnapshot();
        Assert.Equal(threads * perThread, snapshot.OpenTree("t").Count);
    }

    [Fact]
    public void An_operation_that_throws_fails_its_Write_alone_and_leaves_no_trace()
    {
        _env.Write(0, static (tx, _) => tx.CreateTree("t"));
        var error = Assert.Throws<InvalidOperationException>(() => _env.Write(0, static (tx, _) =>
        {
            tx.OpenTree("t").Put("half"u8, "done"u8);
            throw new InvalidOperationException("boom");
        }));
        Assert.Equal("boom", error.Message);
        Assert.Throws<FormatException>(() => _env.Write(0, static (tx, _) => int.Parse("x", System.Globalization.CultureInfo.InvariantCulture)));
        _env.Write(0, static (tx, _) => tx.OpenTree("t").Put("after"u8, "ok"u8));
        using var snapshot = _env.BeginReadSnapshot();
        Assert.Null(snapshot.OpenTree("t").Get("half"u8));
        Assert.Equal("ok"u8.ToArray(), snapshot.OpenTree("t").Get("after"u8));
    }

    [Fact]
    public void A_failed_environment_fails_the_Write_that_met_the_error_and_every_later_one()
    {
        _env.Write(0, static (tx, _) => tx.CreateTree("t"));
        PalFaultInjection.Arm(PalFaultKind.WriteError, osError: EIO, pathFilter: Path.Combine(_dir.Path, "Journals") + "/");
        Assert.ThrowsAny<Exception>(() => _env.Write(0, static (tx, _) => tx.OpenTree("t").Put("k"u8, "v"u8)));
        PalFaultInjection.Disarm();
        Assert.True(_env.HasFailed);
        Assert.Throws<EnvironmentFailedException>(() => _env.Write(0, static (tx, _) => tx.OpenTree("t").Put("k"u8, "v"u8)));
        Assert.Throws<EnvironmentFailedException>(() => _env.Write(0, static (tx, _) => tx.OpenTree("t").Count));
    }

    [Fact]
    public void A_cancelled_token_fails_before_anything_is_queued()
    {
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        Assert.Throws<OperationCanceledException>(() => _env.Write(0, static (tx, _) => tx.CreateTree("t"), cancelled.Token));
        using var snapshot = _env.BeginReadSnapshot();
        Assert.False(snapshot.TryOpenTree("t", out _));
    }

    [Fact]
    public async Task Write_inside_a_merged_operation_is_refused_instead_of_waiting_for_itself()
    {
        var env = _env;
        var error = await Assert.ThrowsAsync<InvalidOperationException>(async () =>
            await env.WriteAsync(env, static (tx, e) => e.Write(0, static (inner, _) => inner.CreateTree("t"))));
        Assert.Contains("inside a merged operation", error.Message);
    }
}
