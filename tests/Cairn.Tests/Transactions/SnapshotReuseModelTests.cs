using Cairn.Tests.Support;
using FsCheck.Xunit;

namespace Cairn.Tests.Transactions;

/// <summary>
/// A model of snapshots held across lazy and durable commits, journal writes and flusher cycles (issue 29, item 1:
/// a superseded page version goes back to scratch memory as soon as no held state has it): every open snapshot
/// reads exactly as the model did when it began, whatever was rewritten, freed and reused since, and the
/// environment reads as the newest model; after a crash, as the last durable one.
/// </summary>
public sealed class SnapshotReuseModelTests
{
    private const string Tree = "model";

    private static StorageOptions Options(string path) => new(path)
    {
        // Every journal write, flush and sync comes from the test's steps.
        LazyCommitMaxDelay = TimeSpan.FromHours(1),
        LazyCommitMaxBytes = 1L << 30,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        FlushThresholdBytes = 1L << 40,
        PrepareSpareJournals = false,
    };

    private enum Step { LazyCommit, DurableCommit, BeginSnapshot, EndSnapshot, FlushJournal, FlusherCycle, Crash }

    [Property(MaxTest = 25)]
    public void Held_snapshots_read_as_they_began_while_versions_are_reused(int seed)
    {
        var random = new Random(seed);
        using var dir = new TestDirectory("snapshot-reuse-model");
        var env = StorageEnvironment.Open(Options(dir.Path));
        var snapshots = new List<(ReadTransaction Snapshot, SortedDictionary<int, int> Model)>();
        try
        {
            var model = new SortedDictionary<int, int>();
            var history = new Dictionary<long, SortedDictionary<int, int>> { [env.LastCommittedTransactionId] = new(model) };
            for (int stepNumber = 0; stepNumber < 80; stepNumber++)
            {
                switch ((Step)Pick(random, 40, 12, 10, 8, 8, 8, 4))
                {
                    case Step.LazyCommit:
                        Commit(env, random, model, CommitMode.Lazy);
                        history[env.LastCommittedTransactionId] = new(model);
                        break;
                    case Step.DurableCommit:
                        Commit(env, random, model, CommitMode.Durable);
                        history[env.LastCommittedTransactionId] = new(model);
                        break;
                    case Step.BeginSnapshot:
                        snapshots.Add((env.BeginRead(), new(model)));
                        break;
                    case Step.EndSnapshot when snapshots.Count > 0:
                        int which = random.Next(snapshots.Count);
                        snapshots[which].Snapshot.Dispose();
                        snapshots.RemoveAt(which);
                        break;
                    case Step.FlushJournal:
                        env.FlushJournal();
                        break;
                    case Step.FlusherCycle:
                        env.ForTestingPurposesOnly().FlushAndSyncAsTheFlusherDoes();
                        break;
                    case Step.Crash:
                        foreach (var (snapshot, _) in snapshots)
                            snapshot.Dispose();
                        snapshots.Clear();
                        long durable = env.LastDurableTransactionId;
                        env.ForTestingPurposesOnly().SimulateProcessCrash();
                        env = StorageEnvironment.Open(Options(dir.Path));
                        Assert.Equal(durable, env.LastCommittedTransactionId);
                        model = new SortedDictionary<int, int>(history[durable]);
                        foreach (long later in history.Keys.Where(id => id > durable).ToList())
                            history.Remove(later);
                        env.Verify();
                        break;
                }
                foreach (var (snapshot, expected) in snapshots)
                    AssertReadsAs(snapshot, expected);
                using var now = env.BeginRead();
                AssertReadsAs(now, model);
            }
        }
        finally
        {
            foreach (var (snapshot, _) in snapshots)
                snapshot.Dispose();
            env.Dispose();
        }
    }

    private static void Commit(StorageEnvironment env, Random random, SortedDictionary<int, int> model, CommitMode mode)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree(Tree);
        for (int n = random.Next(1, 60); n > 0; n--)
        {
            int key = random.Next(500);
            if (random.Next(6) == 0)
            {
                tree.Delete(Bytes.Key(key));
                model.Remove(key);
            }
            else
            {
                int value = random.Next();
                tree.Put(Bytes.Key(key), Bytes.Value(value, 40 + value % 300));
                model[key] = value;
            }
        }
        tx.Commit(mode);
    }

    private static int Pick(Random random, params int[] weights)
    {
        int roll = random.Next(weights.Sum());
        for (int i = 0; i < weights.Length; i++)
        {
            if (roll < weights[i])
                return i;
            roll -= weights[i];
        }
        return weights.Length - 1;
    }

    private static void AssertReadsAs(ReadTransaction tx, SortedDictionary<int, int> model)
    {
        if (!tx.TryOpenTree(Tree, out var tree))
        {
            Assert.Empty(model);
            return;
        }
        Assert.Equal(model.Count, tree.Count);
        foreach (var (key, value) in model)
            Assert.Equal(Bytes.Value(value, 40 + value % 300), tree.Get(Bytes.Key(key)));
    }
}
