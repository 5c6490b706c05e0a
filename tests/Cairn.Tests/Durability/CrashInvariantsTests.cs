using Cairn.TestChild;
using Cairn.Tests.Support;
using Xunit.Sdk;

namespace Cairn.Tests.Durability;

/// <summary>The checker catches each kind of damage a crash can do, so a passing crash run means something.</summary>
public class CrashInvariantsTests
{
    private const long Seed = 77;

    [Fact]
    public void A_lost_acknowledged_transaction_is_reported_by_number()
    {
        using var dir = new TestDirectory("invariants-lost");
        using var env = WriteTransactions(dir.Path, 100);
        var failure = Assert.Throws<XunitException>(() => CrashInvariants.Check(env, new CrashWorkloadModel(new CrashWorkload(Seed)), 103, 104));
        Assert.Contains("acknowledged transactions lost", failure.Message);
        Assert.Contains("transactions 101..103 (3 of them)", failure.Message);
    }

    [Fact]
    public void A_half_applied_transaction_is_reported_with_the_transaction_that_wrote_it()
    {
        using var dir = new TestDirectory("invariants-partial");
        using var env = WriteTransactions(dir.Path, 100);
        using (var tx = env.BeginWrite())
        {
            // Everything of transaction 101 except meta/last, which is its last operation.
            foreach (var op in new CrashWorkload(Seed).Transaction(101).SkipLast(1))
                op.ApplyTo(tx);
            tx.Commit();
        }
        var failure = Assert.Throws<XunitException>(() => CrashInvariants.Check(env, new CrashWorkloadModel(new CrashWorkload(Seed)), 100, 101));
        Assert.Contains("half-applied transaction or a hole", failure.Message);
        Assert.Contains("log: extra key BE64(101) = ", failure.Message);
        Assert.Contains("from transaction 101", failure.Message);
    }

    [Fact]
    public void A_hole_in_the_transaction_sequence_is_reported()
    {
        using var dir = new TestDirectory("invariants-hole");
        using var env = WriteTransactions(dir.Path, 100);
        using (var tx = env.BeginWrite())
        {
            new CrashWorkload(Seed).Apply(tx, 102);
            tx.Commit();
        }
        var failure = Assert.Throws<XunitException>(() => CrashInvariants.Check(env, new CrashWorkloadModel(new CrashWorkload(Seed)), 100, 102));
        Assert.Contains("log: missing key BE64(101)", failure.Message);
    }

    [Fact]
    public void A_transaction_that_was_never_started_is_reported()
    {
        using var dir = new TestDirectory("invariants-phantom");
        using var env = WriteTransactions(dir.Path, 100);
        var failure = Assert.Throws<XunitException>(() => CrashInvariants.Check(env, new CrashWorkloadModel(new CrashWorkload(Seed)), 90, 99));
        Assert.Contains("the database claims transaction 100, but no transaction past 99 was ever started", failure.Message);
    }

    [Fact]
    public void A_changed_value_and_an_extra_tree_are_reported()
    {
        using var dir = new TestDirectory("invariants-changed");
        using var env = WriteTransactions(dir.Path, 100);
        using (var tx = env.BeginWrite())
        {
            tx.OpenTree(CrashWorkload.LogTree).Put(CrashWorkload.LogKey(50), new byte[] { 0, 0, 0, 0, 0, 0, 0, 49, 1, 2, 3 });
            tx.CreateTree("stray");
            tx.Commit();
        }
        var failure = Assert.Throws<XunitException>(() => CrashInvariants.Check(env, new CrashWorkloadModel(new CrashWorkload(Seed)), 100, 100));
        Assert.Contains("log: key BE64(50) is 11 bytes from transaction 49", failure.Message);
        Assert.Contains("extra tree 'stray'", failure.Message);
    }

    private static StorageEnvironment WriteTransactions(string directory, long count)
    {
        var env = StorageEnvironment.Open(new StorageOptions(directory));
        var workload = new CrashWorkload(Seed);
        for (long i = 1; i <= count; i++)
        {
            using var tx = env.BeginWrite();
            workload.Apply(tx, i);
            tx.Commit();
        }
        return env;
    }
}
