using Cairn.Diagnostics;
using Cairn.Tests.Support;

namespace Cairn.Tests.Commit;

/// <summary>
/// Lazy commits (<see cref="CommitMode.Lazy"/>): published at once, written later in commit order, with the
/// next durable commit, at the size bound, on FlushJournal, a checkpoint or the close. A crash keeps a prefix
/// of the commit order holding everything that was durable, and the flusher never puts a page of a
/// transaction the journal does not hold into the data file.
/// </summary>
public sealed class LazyCommitTests
{
    private const string Tree = "values";

    // Nothing happens in the background unless a test asks for it: no timed write, flush or sync.
    private static StorageOptions Options(string path, CommitMode mode = CommitMode.Durable, long lazyMaxBytes = 64L << 20) => new(path)
    {
        CommitMode = mode,
        LazyCommitMaxDelay = TimeSpan.FromHours(1),
        LazyCommitMaxBytes = lazyMaxBytes,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        PrepareSpareJournals = false,
    };

    private static long Put(StorageEnvironment env, int key, CommitMode mode, int valueLength = 100)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree(Tree).Put(Bytes.Key(key), Bytes.Value(key, valueLength));
        tx.Commit(mode);
        return env.LastCommittedTransactionId;
    }

    private static void AssertKeys(StorageEnvironment env, int count, int valueLength = 100)
    {
        using var tx = env.BeginRead();
        Assert.True(tx.TryOpenTree(Tree, out var tree) || count == 0);
        Assert.Equal(count, count == 0 ? 0 : tree.Count);
        for (int i = 0; i < count; i++)
            Assert.Equal(Bytes.Value(i, valueLength), tree.Get(Bytes.Key(i)));
    }

    private static IoOperation[] JournalWrites(StorageEnvironment env)
        => env.IoStats.Snapshot().Where(o => o.Kind == IoOperationKind.JournalWrite).ToArray();

    [Fact]
    public void A_lazy_commit_is_visible_at_once_and_durable_only_after_FlushJournal()
    {
        using var dir = new TestDirectory("lazy-visible");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        long durable = Put(env, 0, CommitMode.Durable);
        long lazy = Put(env, 1, CommitMode.Lazy);

        Assert.Equal(lazy, env.LastCommittedTransactionId);
        Assert.Equal(durable, env.LastDurableTransactionId);
        AssertKeys(env, 2);
        Assert.Single(JournalWrites(env));

        env.FlushJournal();
        Assert.Equal(lazy, env.LastDurableTransactionId);
        var writes = JournalWrites(env);
        Assert.Equal(2, writes.Length);
        Assert.Equal((lazy, lazy, 1), (writes[^1].FirstTransactionId, writes[^1].LastTransactionId, writes[^1].TransactionCount));
        env.FlushJournal(); // nothing queued: no write
        Assert.Equal(2, JournalWrites(env).Length);
    }

    [Fact]
    public void A_durable_commit_writes_the_lazy_ones_before_it_in_the_same_write()
    {
        using var dir = new TestDirectory("lazy-then-durable");
        long last;
        using (var env = StorageEnvironment.Open(Options(dir.Path)))
        {
            long first = Put(env, 0, CommitMode.Lazy);
            for (int i = 1; i < 10; i++)
                Put(env, i, CommitMode.Lazy);
            Assert.Empty(JournalWrites(env));
            last = Put(env, 10, CommitMode.Durable);

            var write = Assert.Single(JournalWrites(env));
            Assert.Equal((first, last, 11), (write.FirstTransactionId, write.LastTransactionId, write.TransactionCount));
            Assert.Equal(last, env.LastDurableTransactionId);
            env.ForTestingPurposesOnly().SimulateProcessCrash();
        }
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        Assert.Equal(last, reopened.LastCommittedTransactionId);
        AssertKeys(reopened, 11);
        reopened.Verify();
    }

    [Fact]
    public void A_crash_loses_the_unwritten_lazy_commits_and_keeps_every_durable_one()
    {
        using var dir = new TestDirectory("lazy-crash");
        long durable;
        using (var env = StorageEnvironment.Open(Options(dir.Path)))
        {
            for (int i = 0; i < 20; i++)
                Put(env, i, i % 5 == 4 ? CommitMode.Durable : CommitMode.Lazy);
            durable = env.LastDurableTransactionId;
            Put(env, 20, CommitMode.Lazy);
            Put(env, 21, CommitMode.Lazy);
            Assert.True(env.LastCommittedTransactionId > durable);
            env.ForTestingPurposesOnly().SimulateProcessCrash();
        }
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        Assert.Equal(durable, reopened.LastCommittedTransactionId);
        AssertKeys(reopened, 20);
        reopened.Verify();
    }

    [Fact]
    public void The_flusher_writes_no_page_of_a_transaction_the_journal_does_not_hold()
    {
        using var dir = new TestDirectory("lazy-flush-watermark");
        long durable;
        using (var env = StorageEnvironment.Open(Options(dir.Path)))
        {
            for (int i = 0; i < 50; i++)
                Put(env, i, CommitMode.Durable);
            durable = env.LastDurableTransactionId;
            // Lazy commits rewrite the same leaves and add new ones; then a flush and a sync as the flusher does them.
            for (int i = 0; i < 50; i++)
                Put(env, i, CommitMode.Lazy, valueLength: 200);
            for (int i = 50; i < 300; i++)
                Put(env, i, CommitMode.Lazy);
            env.ForTestingPurposesOnly().FlushAndSyncAsTheFlusherDoes();
            Assert.Equal(durable, env.LastSyncedTransactionId);
            env.ForTestingPurposesOnly().SimulateProcessCrash();
        }
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        Assert.Equal(durable, reopened.LastCommittedTransactionId);
        AssertKeys(reopened, 50);
        reopened.Verify();
    }

    [Fact]
    public void Once_written_the_lazy_commits_are_flushed_and_synced_like_any()
    {
        using var dir = new TestDirectory("lazy-flushed-after-write");
        using var env = StorageEnvironment.Open(Options(dir.Path, CommitMode.Lazy));
        for (int i = 0; i < 100; i++)
            { using var tx = env.BeginWrite(); tx.CreateTree(Tree).Put(Bytes.Key(i), Bytes.Value(i, 100)); tx.Commit(); }
        env.FlushJournal();
        env.ForTestingPurposesOnly().FlushAndSyncAsTheFlusherDoes();
        Assert.Equal(env.LastCommittedTransactionId, env.LastSyncedTransactionId);
        env.Verify();
    }

    [Fact]
    public void The_size_bound_writes_the_queue_from_the_committing_thread()
    {
        const long bound = 64 << 10;
        using var dir = new TestDirectory("lazy-size-bound");
        using var env = StorageEnvironment.Open(Options(dir.Path, lazyMaxBytes: bound));
        long committed = 0;
        for (int i = 0; i < 10_000 && env.LastDurableTransactionId < committed + 1; i++)
        {
            committed = Put(env, i, CommitMode.Lazy);
            if (env.LastDurableTransactionId == committed)
                break;
        }
        Assert.Equal(committed, env.LastDurableTransactionId);
        var write = Assert.Single(JournalWrites(env));
        Assert.True(write.TransactionCount > 1);
        Assert.True(write.Bytes >= bound, $"{write.Bytes} bytes written");
    }

    [Fact]
    public void A_bound_of_one_byte_writes_every_lazy_commit_at_once()
    {
        using var dir = new TestDirectory("lazy-size-one");
        using var env = StorageEnvironment.Open(Options(dir.Path, lazyMaxBytes: 1));
        for (int i = 0; i < 3; i++)
            Assert.Equal(Put(env, i, CommitMode.Lazy), env.LastDurableTransactionId);
        Assert.Equal(3, JournalWrites(env).Length);
    }

    [Fact]
    public async Task The_time_bound_writes_the_queue_in_the_background()
    {
        using var dir = new TestDirectory("lazy-time-bound");
        var options = new StorageOptions(dir.Path) { CommitMode = CommitMode.Lazy, LazyCommitMaxDelay = TimeSpan.FromMilliseconds(20) };
        using var env = StorageEnvironment.Open(options);
        long committed = Put(env, 0, CommitMode.Lazy);
        // No bound on how soon (a loaded machine delays timers): only that it happens without any other call.
        while (env.LastDurableTransactionId < committed)
            await Task.Delay(5);
        Assert.Equal(committed, Assert.Single(JournalWrites(env)).LastTransactionId);
    }

    [Fact]
    public void Close_and_checkpoint_write_the_queue()
    {
        using var dir = new TestDirectory("lazy-close");
        using (var env = StorageEnvironment.Open(Options(dir.Path, CommitMode.Lazy)))
        {
            for (int i = 0; i < 10; i++)
                Put(env, i, CommitMode.Lazy);
            env.Checkpoint();
            Assert.Equal(env.LastCommittedTransactionId, env.LastSyncedTransactionId);
            for (int i = 10; i < 20; i++)
                Put(env, i, CommitMode.Lazy);
        }
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        AssertKeys(reopened, 20);
        reopened.Verify();
    }

    [Fact]
    public async Task Merged_writes_after_lazy_commits_carry_them()
    {
        using var dir = new TestDirectory("lazy-merged");
        using (var env = StorageEnvironment.Open(Options(dir.Path)))
        {
            for (int i = 0; i < 5; i++)
                Put(env, i, CommitMode.Lazy);
            await env.WriteAsync(5, static (tx, k) => tx.CreateTree(Tree).Put(Bytes.Key(k), Bytes.Value(k, 100)));
            Assert.Equal(env.LastCommittedTransactionId, env.LastDurableTransactionId);
            env.ForTestingPurposesOnly().SimulateProcessCrash();
        }
        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        AssertKeys(reopened, 6);
    }

    [Fact]
    public void A_writer_short_of_scratch_memory_writes_the_queue_so_the_flusher_can_go_on()
    {
        using var dir = new TestDirectory("lazy-scratch");
        var options = new StorageOptions(dir.Path)
        {
            CommitMode = CommitMode.Lazy,
            LazyCommitMaxDelay = TimeSpan.FromHours(1),
            LazyCommitMaxBytes = 1L << 30,
            MaxScratchBytes = 4L << 20,
            FlushThresholdBytes = 2L << 20,
            ScratchWaitTimeout = TimeSpan.FromMinutes(5),
        };
        using var env = StorageEnvironment.Open(options);
        // About 8 MiB of live pages (a superseded version goes back at once, so only what the tree holds counts) through
        // lazy commits alone: without the write before the wait, the first wait would last until the timeout (the
        // flusher may only flush what the journal holds).
        for (int i = 0; i < 6000; i++)
            Put(env, i, CommitMode.Lazy, valueLength: 1000);
        Assert.True(env.LastDurableTransactionId > 0);
        AssertKeys(env, 6000, 1000);
    }

    [Fact]
    public async Task Concurrent_durable_commits_are_durable_when_Commit_returns_and_survive_a_crash()
    {
        const int threads = 8, commitsEach = 40;
        using var dir = new TestDirectory("group-commit");
        var env = StorageEnvironment.Open(Options(dir.Path));
        var notDurableOnReturn = 0;
        await Task.WhenAll(Enumerable.Range(0, threads).Select(t => Task.Run(() =>
        {
            for (int i = 0; i < commitsEach; i++)
            {
                int key = t * commitsEach + i;
                long id;
                using (var tx = env.BeginWrite())
                {
                    tx.CreateTree(Tree).Put(Bytes.Key(key), Bytes.Value(key, 100));
                    id = tx.TransactionId + 1;
                    tx.Commit();
                }
                if (env.LastDurableTransactionId < id)
                    Interlocked.Increment(ref notDurableOnReturn);
            }
        })));
        Assert.Equal(0, notDurableOnReturn);
        Assert.Equal(env.LastCommittedTransactionId, env.LastDurableTransactionId);
        long last = env.LastCommittedTransactionId;
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(Options(dir.Path));
        Assert.Equal(last, reopened.LastCommittedTransactionId);
        AssertKeys(reopened, threads * commitsEach);
        reopened.Verify();
    }

    [Fact]
    public void An_empty_durable_commit_writes_the_queue()
    {
        using var dir = new TestDirectory("lazy-empty-durable");
        using var env = StorageEnvironment.Open(Options(dir.Path));
        long lazy = Put(env, 0, CommitMode.Lazy);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree(Tree).Delete(Bytes.Key(12345)); // nothing to delete: the transaction changes nothing
            tx.Commit(CommitMode.Durable);
        }
        Assert.Equal(lazy, env.LastCommittedTransactionId);
        Assert.Equal(lazy, env.LastDurableTransactionId);
    }
}
