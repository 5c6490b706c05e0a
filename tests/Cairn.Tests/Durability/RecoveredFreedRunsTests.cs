using Cairn.Tests.Support;

namespace Cairn.Tests.Durability;

/// <summary>
/// Journal entries carry the pages a transaction wrote, not the ones it freed. A run written and then
/// freed by transactions that are replayed after a crash must not outlive recovery as a live version of
/// free pages: the allocator hands those pages out again in other shapes, the page table then holds
/// overlapping runs, and the flush fails (issue 11, item 2: "Invalid argument during writing pages").
/// </summary>
public class RecoveredFreedRunsTests
{
    private static StorageOptions NeverFlushing(string path) => new(path)
    {
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        FlushThresholdBytes = 1L << 30,
    };

    private static byte[] Value(int key, int pages) => Bytes.Value(key, pages * 8192 - 200);

    [Fact]
    public void Runs_freed_before_a_crash_are_not_live_after_recovery_and_their_pages_are_reused_in_other_shapes()
    {
        using var dir = new TestDirectory("recovered-freed-runs");
        // Overflow runs of several sizes, then every other one deleted, all before any flush: replay rebuilds
        // every run, and the free-space map it rebuilds says half of them are free.
        var live = new Dictionary<int, byte[]>();
        var env = StorageEnvironment.Open(NeverFlushing(dir.Path));
        for (int key = 1; key <= 12; key++)
        {
            using var tx = env.BeginWrite();
            var value = Value(key, 2 + key % 5);
            tx.CreateTree("t").Put(Bytes.Key(key), value);
            tx.Commit();
            live[key] = value;
        }
        for (int key = 1; key <= 12; key += 2)
        {
            using var tx = env.BeginWrite();
            Assert.True(tx.CreateTree("t").Delete(Bytes.Key(key)));
            tx.Commit();
            live.Remove(key);
        }
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("doomed").Put(Bytes.Key(0), Value(0, 3));
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            tx.DeleteTree("doomed");
            tx.Commit();
        }
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using (env = StorageEnvironment.Open(NeverFlushing(dir.Path)))
        {
            env.Verify();
            // New runs of other sizes land in the freed space, straddling where the old runs began.
            for (int key = 100; key < 120; key++)
            {
                using (var tx = env.BeginWrite())
                {
                    var value = Value(key, 1 + key % 9);
                    tx.CreateTree("t").Put(Bytes.Key(key), value);
                    tx.Commit();
                    live[key] = value;
                }
                env.Verify();
            }
            env.Checkpoint();
            Assert.False(env.HasFailed);
            AssertHolds(env, live);
        }
        using var reopened = StorageEnvironment.Open(NeverFlushing(dir.Path));
        AssertHolds(reopened, live);
        reopened.Verify();
    }

    private static void AssertHolds(StorageEnvironment env, Dictionary<int, byte[]> live)
    {
        using var tx = env.BeginRead();
        var tree = tx.OpenTree("t");
        Assert.Equal(live.Count, tree.Count);
        foreach (var (key, value) in live)
            Assert.True(tree.TryGet(Bytes.Key(key), out var found) && found.SequenceEqual(value), $"key {key} is missing or wrong");
        Assert.False(tx.TryOpenTree("doomed", out _));
    }
}
