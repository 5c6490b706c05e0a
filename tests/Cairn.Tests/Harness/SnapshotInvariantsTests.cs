using Cairn.Stress;
using Cairn.Stress.Checking;
using Cairn.Stress.Workload;
using Cairn.Tests.Support;

namespace Cairn.Tests.Harness;

/// <summary>What a reader checks holds in every committed snapshot, and catches each way a snapshot can be broken.</summary>
public class SnapshotInvariantsTests
{
    private const long Seed = 4242;

    [Fact]
    public void Every_committed_snapshot_holds_the_invariants_and_an_old_one_keeps_holding_them()
    {
        using var dir = new TestDirectory("snapshot-invariants");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        var workload = new StressWorkload(Seed, new WorkloadShape());
        using (var empty = env.BeginRead())
            Assert.Null(SnapshotInvariants.Check(empty, workload));
        workload.Commit(env, 1, 40);
        using var old = env.BeginRead();
        for (long i = 41; i <= 400; i++)
        {
            workload.Commit(env, i, i);
            using var tx = env.BeginRead();
            Assert.Null(SnapshotInvariants.Check(tx, workload));
        }
        Assert.Null(SnapshotInvariants.Check(old, workload));
    }

    [Fact]
    public void A_snapshot_showing_writes_of_the_next_transaction_is_caught()
    {
        using var dir = new TestDirectory("snapshot-next");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        var workload = new StressWorkload(Seed, new WorkloadShape());
        workload.Commit(env, 1, 50);
        using (var tx = env.BeginWrite())
        {
            // Transaction 51 except its last step: the snapshot still says 50.
            workload.Apply(tx, 51);
            tx.OpenTree(StressWorkload.MetaTree).Put(StressWorkload.LastKey, WorkloadValues.BigEndian(50));
            tx.Commit();
        }
        using var read = env.BeginRead();
        var problem = SnapshotInvariants.Check(read, workload);
        Assert.NotNull(problem);
        Assert.Contains("snapshot at transaction 50", problem);
        Assert.Contains("from transaction 51", problem);
    }

    [Fact]
    public void A_missing_write_of_the_newest_transaction_a_wrong_count_and_a_wrong_sum_are_caught()
    {
        using var dir = new TestDirectory("snapshot-broken");
        var workload = new StressWorkload(Seed, new WorkloadShape());
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        workload.Commit(env, 1, 50);
        var put = workload.Transaction(50).First(o => o.Kind == StressOperationKind.Put && o.Tree.StartsWith('d'));
        using (var tx = env.BeginWrite())
        {
            tx.OpenTree(put.Tree).Delete(put.Key);
            var accounts = tx.OpenTree(StressWorkload.AccountsTree);
            var balance = WorkloadValues.NumberOf(accounts.Get(StressWorkload.AccountKey(7)), "balance");
            accounts.Put(StressWorkload.AccountKey(7), WorkloadValues.StampedNumber(50, balance + 1));
            tx.Commit();
        }
        using var read = env.BeginRead();
        var problem = SnapshotInvariants.Check(read, workload);
        Assert.NotNull(problem);
        Assert.Contains($"transaction 50 put {put.Tree}/", problem);
        Assert.Contains("which is missing", problem);
        Assert.Contains($"tree '{put.Tree}' holds", problem);
        Assert.Contains("the balances add up to 64001, not 64000", problem);
    }
}
