using Cairn.Stress;
using Cairn.Stress.Checking;
using Cairn.Stress.Workload;
using Cairn.Tests.Support;

namespace Cairn.Tests.Harness;

/// <summary>The checker catches each kind of damage a crash can do, so a passing campaign means something.</summary>
public class StateInspectionTests
{
    private const long Seed = 77;

    [Fact]
    public void A_lost_acknowledged_transaction_is_reported_by_number()
    {
        using var dir = new TestDirectory("inspect-lost");
        using var env = WriteTransactions(dir.Path, 100);
        var result = StateInspection.Inspect(env, Model(), new TransactionBounds(103, 104));
        Assert.Equal(3, result.Lost);
        Assert.Equal(0, result.HalfApplied);
        Assert.Contains(result.Problems, p => p.Contains("acknowledged transactions lost") && p.Contains("transactions 101..103 (3 of them)"));
    }

    [Fact]
    public void A_half_applied_transaction_is_reported_with_the_transaction_that_wrote_it()
    {
        using var dir = new TestDirectory("inspect-partial");
        using var env = WriteTransactions(dir.Path, 100);
        WriteAllButLastStep(env, 101);
        var result = StateInspection.Inspect(env, Model(), new TransactionBounds(100, 101));
        Assert.Equal(1, result.HalfApplied);
        Assert.Equal(0, result.Lost);
        var problem = Assert.Single(result.Problems);
        Assert.Contains("half-applied transaction or a hole; transactions seen partly: 101", problem);
        Assert.Contains("log: extra key BE64(101) = ", problem);
        Assert.Contains("from transaction 101", problem);
    }

    [Fact]
    public void A_hole_in_the_transaction_sequence_is_reported()
    {
        using var dir = new TestDirectory("inspect-hole");
        var workload = new StressWorkload(Seed, new WorkloadShape());
        using var env = WriteTransactions(dir.Path, 100);
        using (var tx = env.BeginWrite())
        {
            // 102 on top of 100: numbered as the workload numbers it, but 101 never happened.
            foreach (var op in workload.Transaction(102).Where(o => o.Kind is StressOperationKind.Put or StressOperationKind.Delete))
            {
                if (op.Kind == StressOperationKind.Put)
                    tx.OpenTree(op.Tree).Put(op.Key, op.Value);
                else
                    tx.OpenTree(op.Tree).Delete(op.Key);
            }
            tx.Commit();
        }
        var result = StateInspection.Inspect(env, Model(), new TransactionBounds(100, 102));
        Assert.True(result.HalfApplied >= 1);
        Assert.Contains(result.Problems, p => p.Contains("log: missing key BE64(101)"));
    }

    [Fact]
    public void A_transaction_that_was_never_started_is_reported()
    {
        using var dir = new TestDirectory("inspect-phantom");
        using var env = WriteTransactions(dir.Path, 100);
        var result = StateInspection.Inspect(env, Model(), new TransactionBounds(90, 99));
        Assert.True(result.Phantom);
        Assert.Contains(result.Problems, p => p.Contains("the database claims transaction 100, but no transaction past 99 was ever started"));
    }

    [Fact]
    public void A_changed_value_and_an_extra_tree_are_reported()
    {
        using var dir = new TestDirectory("inspect-changed");
        using var env = WriteTransactions(dir.Path, 100);
        using (var tx = env.BeginWrite())
        {
            tx.OpenTree(StressWorkload.LogTree).Put(StressWorkload.LogKey(50), [0, 0, 0, 0, 0, 0, 0, 49, 1, 2, 3]);
            tx.CreateTree("stray");
            tx.Commit();
        }
        var result = StateInspection.Inspect(env, Model(), new TransactionBounds(100, 100));
        var problem = Assert.Single(result.Problems);
        Assert.Contains("log: key BE64(50) is 11 bytes from transaction 49", problem);
        Assert.Contains("extra tree 'stray'", problem);
        Assert.Equal(1, result.HalfApplied);
    }

    [Fact]
    public void A_clean_database_within_its_bounds_passes()
    {
        using var dir = new TestDirectory("inspect-clean");
        using var env = WriteTransactions(dir.Path, 100);
        var result = StateInspection.Inspect(env, Model(), new TransactionBounds(98, 102));
        Assert.True(result.IsClean, string.Join(System.Environment.NewLine, result.Problems));
        Assert.Equal(100, result.Last);
    }

    private static StressModel Model() => new(new StressWorkload(Seed, new WorkloadShape()));

    internal static StorageEnvironment WriteTransactions(string directory, long count, long seed = Seed)
    {
        var env = StorageEnvironment.Open(new StorageOptions(directory));
        new StressWorkload(seed, new WorkloadShape()).Commit(env, 1, count);
        return env;
    }

    /// <summary>Everything of transaction <paramref name="i"/> except meta/last, which is its last step.</summary>
    internal static void WriteAllButLastStep(StorageEnvironment env, long i, long seed = Seed)
    {
        using var tx = env.BeginWrite();
        var workload = new StressWorkload(seed, new WorkloadShape());
        workload.Apply(tx, i);
        tx.OpenTree(StressWorkload.MetaTree).Put(StressWorkload.LastKey, WorkloadValues.BigEndian(i - 1));
        tx.Commit();
    }
}
