using Cairn.Tests.Support;

namespace Cairn.Tests.Durability;

/// <summary>
/// Scratch memory is bounded: past <see cref="StorageOptions.MaxScratchBytes"/> a writer waits for the
/// flusher, and when nothing can be flushed (a reader pins the old versions) it gets a clear exception
/// after <see cref="StorageOptions.ScratchWaitTimeout"/> instead of the process running out of memory.
/// </summary>
public class ScratchPressureTests
{
    private const int PressureEvent = 1402;

    private static void Rewrite(StorageEnvironment env, int round, int keys)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (int k = 0; k < keys; k++)
            tree.Put(Bytes.Key(k), Bytes.Value(round * 1000 + k, 1500));
        tx.Commit();
    }

    private static void Insert(StorageEnvironment env, int round)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (int k = round * 20; k < round * 20 + 20; k++)
            tree.Put(Bytes.Key(k), Bytes.Value(k, 7000));
        tx.Commit();
    }

    [Fact]
    public void Writers_wait_for_the_flusher_and_every_commit_lands()
    {
        using var dir = new TestDirectory("scratch-wait");
        var log = new CapturingLoggerFactory();
        var options = new StorageOptions(dir.Path)
        {
            MaxScratchBytes = 2 << 20,
            FlushThresholdBytes = 1L << 30, // only the memory limit makes the flusher run
            MaxFlushDelay = TimeSpan.FromHours(1),
            SyncInterval = TimeSpan.FromHours(1),
            LoggerFactory = log,
        };
        using (var env = StorageEnvironment.Open(options))
        {
            // About 15 MiB of new pages, seven times the limit.
            for (int round = 0; round < 100; round++)
                Insert(env, round);
            Assert.NotEmpty(log.WithEventId(PressureEvent));
        }
        using (var env = StorageEnvironment.Open(options))
        {
            using var tx = env.BeginRead();
            var tree = tx.OpenTree("t");
            Assert.Equal(100 * 20, tree.Count);
            for (int k = 0; k < 100 * 20; k += 3)
                Assert.Equal(Bytes.Value(k, 7000), tree.Get(Bytes.Key(k)));
        }
    }

    [Fact]
    public async Task A_merged_transaction_over_the_limit_waits_for_the_flusher_and_the_next_ones_commit()
    {
        // One operation writes more than the limit: the merger, after publishing it, must wait for scratch
        // memory without pinning the state before it (which would keep its pages from being flushed and
        // fail the next operations with a scratch timeout).
        using var dir = new TestDirectory("scratch-merged");
        var options = new StorageOptions(dir.Path)
        {
            MaxScratchBytes = 1 << 20,
            ScratchWaitTimeout = TimeSpan.FromSeconds(30),
            FlushThresholdBytes = 1L << 30, // only the memory limit makes the flusher run
            MaxFlushDelay = TimeSpan.FromHours(1),
            SyncInterval = TimeSpan.FromHours(1),
        };
        using (var env = StorageEnvironment.Open(options))
        {
            for (int round = 0; round < 3; round++)
            {
                await env.WriteAsync(round, static (tx, r) =>
                {
                    var tree = tx.CreateTree("t");
                    for (int k = r * 200; k < r * 200 + 200; k++)
                        tree.Put(Bytes.Key(k), Bytes.Value(k, 7000));
                });
            }
        }
        using (var env = StorageEnvironment.Open(options))
        {
            using var tx = env.BeginRead();
            var tree = tx.OpenTree("t");
            Assert.Equal(600, tree.Count);
            for (int k = 0; k < 600; k += 7)
                Assert.Equal(Bytes.Value(k, 7000), tree.Get(Bytes.Key(k)));
        }
    }

    [Fact]
    public void A_reader_that_pins_old_versions_makes_writers_fail_clearly_then_they_recover()
    {
        using var dir = new TestDirectory("scratch-pinned");
        var options = new StorageOptions(dir.Path)
        {
            MaxScratchBytes = 2 << 20,
            ScratchWaitTimeout = TimeSpan.FromMilliseconds(300),
            MaxFlushDelay = TimeSpan.FromMilliseconds(1),
            SyncInterval = TimeSpan.FromHours(1),
        };
        using var env = StorageEnvironment.Open(options);
        Rewrite(env, 0, keys: 40);
        long pinned = env.LastCommittedTransactionId;
        var reader = env.BeginRead();
        ScratchMemoryExhaustedException? error = null;
        for (int round = 1; round < 1000 && error is null; round++)
        {
            try
            {
                // New pages: the flusher may flush no state newer than the reader's, so they pile up in scratch memory.
                // (Rewriting the reader's pages would not: versions between its state and the newest go back at once.)
                Insert(env, round);
            }
            catch (ScratchMemoryExhaustedException e)
            {
                error = e;
            }
        }
        Assert.NotNull(error);
        Assert.Contains($"the oldest read transaction still sees transaction {pinned}", error!.Message);
        Assert.False(env.HasFailed);
        // What the reader sees never changed.
        Assert.Equal(Bytes.Value(0, 1500), reader.OpenTree("t").Get(Bytes.Key(0)));

        reader.Dispose();
        long before = env.LastCommittedTransactionId;
        Rewrite(env, 5000, keys: 40);
        Assert.Equal(before + 1, env.LastCommittedTransactionId);
    }
}
