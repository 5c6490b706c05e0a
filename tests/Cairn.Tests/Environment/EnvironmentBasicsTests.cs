using Cairn.Paging;
using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

public class EnvironmentBasicsTests
{
    [Fact]
    public void Committed_data_survives_a_clean_reopen()
    {
        using var dir = new TestDirectory("env-reopen");
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
        {
            using var tx = env.BeginWrite();
            var users = tx.CreateTree("users");
            for (int i = 0; i < 5000; i++)
                users.Put(Bytes.Key(i), Bytes.Value(i, 100));
            tx.Commit();
        }
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
        {
            using var tx = env.BeginRead();
            var users = tx.OpenTree("users");
            Assert.Equal(5000, users.Count);
            for (int i = 0; i < 5000; i++)
            {
                Assert.True(users.TryGet(Bytes.Key(i), out var value));
                Assert.True(value.SequenceEqual(Bytes.Value(i, 100)));
            }
            Assert.Equal(1, tx.TransactionId);
            env.Verify();
        }
    }

    [Fact]
    public void Abort_leaves_no_trace()
    {
        using var dir = new TestDirectory("env-abort");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(Bytes.Key(1), Bytes.Value(1, 10));
            tx.Commit();
        }
        var before = env.Verify();
        using (var tx = env.BeginWrite())
        {
            var t = tx.OpenTree("t");
            for (int i = 2; i < 3000; i++)
                t.Put(Bytes.Key(i), Bytes.Value(i, 200));
            t.Delete(Bytes.Key(1));
            tx.CreateTree("other");
            // disposed without Commit
        }
        using (var tx = env.BeginRead())
        {
            Assert.False(tx.TryOpenTree("other", out _));
            var t = tx.OpenTree("t");
            Assert.Equal(1, t.Count);
            Assert.True(t.TryGet(Bytes.Key(1), out _));
            Assert.Equal(before.TransactionId, tx.TransactionId);
        }
        var after = env.Verify();
        Assert.Equal(before, after);
    }

    [Fact]
    public void Errors_are_clear()
    {
        using var dir = new TestDirectory("env-errors");
        var env = StorageEnvironment.Open(new StorageOptions(dir.Path) { WriteTransactionTimeout = TimeSpan.FromMilliseconds(100) });
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t");
            tx.Commit();
        }

        using (var read = env.BeginRead())
        {
            var t = read.OpenTree("t");
            Assert.Throws<ReadOnlyTransactionException>(() => t.Put(Bytes.Key(1), Bytes.Key(1)));
            Assert.Throws<TreeNotFoundException>(() => read.OpenTree("missing"));
            Assert.Throws<LiveTransactionsException>(env.Dispose);
        }

        using (var write = env.BeginWrite())
        {
            var t = write.OpenTree("t");
            Assert.Throws<InvalidKeyException>(() => t.Put(new byte[StorageConstants.MaxKeySize + 1], Bytes.Key(1)));
            Assert.Throws<InvalidKeyException>(() => t.Put([], Bytes.Key(1)));
            t.Put(new byte[StorageConstants.MaxKeySize], Bytes.Key(1)); // the limit itself is fine
            Assert.Throws<WriteTransactionTimeoutException>(() => env.BeginWrite());
            Assert.Throws<LiveTransactionsException>(env.Dispose);
        }

        var disposed = env.BeginRead();
        var tree = disposed.OpenTree("t");
        disposed.Dispose();
        Assert.Throws<ObjectDisposedException>(() => tree.TryGet(Bytes.Key(1), out _));

        env.Dispose();
        Assert.Throws<ObjectDisposedException>(() => env.BeginRead());
    }

    [Fact]
    public void A_second_open_of_the_same_directory_is_refused()
    {
        using var dir = new TestDirectory("env-lock");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        var error = Assert.Throws<EnvironmentLockedException>(() => StorageEnvironment.Open(new StorageOptions(dir.Path)));
        Assert.Equal(dir.Path, error.Directory);
    }

    [Fact]
    public void Trees_can_be_listed_and_deleted()
    {
        using var dir = new TestDirectory("env-trees");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        using (var tx = env.BeginWrite())
        {
            foreach (var name in new[] { "b", "a", "c" })
            {
                var t = tx.CreateTree(name);
                for (int i = 0; i < 2000; i++)
                    t.Put(Bytes.Key(i), Bytes.Value(i, 50));
            }
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            Assert.Equal(["a", "b", "c"], tx.GetTreeNames());
            Assert.True(tx.DeleteTree("b"));
            Assert.False(tx.DeleteTree("b"));
            tx.Commit();
        }
        using (var tx = env.BeginRead())
            Assert.Equal(["a", "c"], tx.GetTreeNames());
        env.Verify();
    }

    [Fact]
    public void Large_values_go_to_overflow_pages_and_come_back()
    {
        using var dir = new TestDirectory("env-overflow");
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
        {
            using var tx = env.BeginWrite();
            var t = tx.CreateTree("blobs");
            foreach (int size in new[] { 3000, 8192, 100_000, 3 << 20 })
                t.Put(Bytes.Key(size), Bytes.Value(size, size));
            tx.Commit();
        }
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
        {
            using var tx = env.BeginRead();
            var t = tx.OpenTree("blobs");
            foreach (int size in new[] { 3000, 8192, 100_000, 3 << 20 })
            {
                Assert.True(t.TryGet(Bytes.Key(size), out var value));
                Assert.True(value.SequenceEqual(Bytes.Value(size, size)));
            }
            env.Verify();
        }
    }
}
