using Cairn.Tests.Support;
using FsCheck.Xunit;

namespace Cairn.Tests.Commit;

/// <summary>
/// A model of lazy and durable commits mixed with journal writes, flusher cycles and crashes: the environment
/// always reads as the model's newest state, and after a (simulated) crash it reads exactly as the model did at
/// the last durable transaction: a prefix of the commit order, holding everything durable, nothing half.
/// </summary>
public sealed class LazyCommitModelTests
{
    private const string Tree = "model";

    private static StorageOptions Options(string path) => new(path)
    {
        // Every write, flush and sync comes from the test's steps, so the durable point is exact.
        LazyCommitMaxDelay = TimeSpan.FromHours(1),
        LazyCommitMaxBytes = 1L << 30,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        FlushThresholdBytes = 1L << 40,
        PrepareSpareJournals = false,
    };

    private enum Step { LazyCommit, DurableCommit, FlushJournal, FlusherCycle, FlushWithoutSync, Crash, Reopen }

    /// <summary>Seed 89 found it: a durable commit that changed nothing returned with lazy commits before it unwritten.</summary>
    [Fact]
    public void A_durable_commit_that_changes_nothing_still_makes_the_lazy_ones_before_it_durable()
        => Crashes_keep_a_prefix_holding_every_durable_commit(89);

    [Property(MaxTest = 25)]
    public void Crashes_keep_a_prefix_holding_every_durable_commit(int seed)
    {
        var random = new Random(seed);
        using var dir = new TestDirectory("lazy-model");
        var env = StorageEnvironment.Open(Options(dir.Path));
        try
        {
            var model = new SortedDictionary<int, int>();
            var history = new Dictionary<long, SortedDictionary<int, int>> { [env.LastCommittedTransactionId] = new(model) };
            for (int stepNumber = 0; stepNumber < 60; stepNumber++)
            {
                var step = (Step)Pick(random, 40, 25, 8, 8, 6, 8, 5);
                switch (step)
                {
                    case Step.LazyCommit or Step.DurableCommit:
                        using (var tx = env.BeginWrite())
                        {
                            var tree = tx.CreateTree(Tree);
                            for (int n = random.Next(1, 40); n > 0; n--)
                            {
                                int key = random.Next(400);
                                if (random.Next(5) == 0)
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
                            tx.Commit(step == Step.LazyCommit ? CommitMode.Lazy : CommitMode.Durable);
                        }
                        history[env.LastCommittedTransactionId] = new(model);
                        if (step == Step.DurableCommit)
                            Assert.Equal(env.LastCommittedTransactionId, env.LastDurableTransactionId);
                        break;
                    case Step.FlushJournal:
                        env.FlushJournal();
                        Assert.Equal(env.LastCommittedTransactionId, env.LastDurableTransactionId);
                        break;
                    case Step.FlusherCycle:
                        env.ForTestingPurposesOnly().FlushAndSyncAsTheFlusherDoes();
                        Assert.True(env.LastSyncedTransactionId <= env.LastDurableTransactionId);
                        break;
                    case Step.FlushWithoutSync:
                        env.ForTestingPurposesOnly().FlushWithoutSync();
                        break;
                    case Step.Crash or Step.Reopen:
                        long durable = env.LastDurableTransactionId;
                        if (step == Step.Crash)
                            env.ForTestingPurposesOnly().SimulateProcessCrash();
                        else
                            env.Dispose();
                        env = StorageEnvironment.Open(Options(dir.Path));
                        long expected = step == Step.Crash ? durable : history.Keys.Max();
                        Assert.Equal(expected, env.LastCommittedTransactionId);
                        model = new SortedDictionary<int, int>(history[expected]);
                        foreach (long later in history.Keys.Where(id => id > expected).ToList())
                            history.Remove(later);
                        env.Verify();
                        break;
                }
                AssertReadsAs(env, model);
            }
        }
        finally
        {
            env.Dispose();
        }
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

    private static void AssertReadsAs(StorageEnvironment env, SortedDictionary<int, int> model)
    {
        using var tx = env.BeginRead();
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
