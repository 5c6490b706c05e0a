using System.Buffers.Binary;
using Cairn.TestChild;
using Cairn.Tests.Support;

namespace Cairn.Tests.Durability;

/// <summary>The crash workload, its model and the checker, in-process: the harness must be right before its verdicts mean anything.</summary>
public class CrashWorkloadTests
{
    private const long Seed = 20240611;

    [Fact]
    public void The_engine_and_the_model_agree_on_the_workload_across_reopens()
    {
        using var dir = new TestDirectory("crash-workload");
        var options = CrashWriterSettings.Aggressive.ToStorageOptions(dir.Path);
        var workload = new CrashWorkload(Seed);
        var model = new CrashWorkloadModel(workload);
        long last = 0;
        foreach (long upTo in new long[] { 150, 320, 450 })
        {
            using var env = StorageEnvironment.Open(options);
            Assert.Equal(last, CrashInvariants.Check(env, model, last, last));
            for (long i = last + 1; i <= upTo; i++)
            {
                using var tx = env.BeginWrite();
                workload.Apply(tx, i);
                tx.Commit();
            }
            last = CrashInvariants.Check(env, model, upTo, upTo);
            Assert.Equal(upTo, last);
        }
        Assert.Equal(450, model.Position);
    }

    [Fact]
    public void The_workload_reaches_overflow_pages_page_reuse_and_tree_directory_changes()
    {
        var ops = Enumerable.Range(1, 400).SelectMany(i => new CrashWorkload(Seed).Transaction(i)).ToList();

        Assert.InRange(ops.Count(o => o.Kind == CrashOperationKind.Put && o.Tree == CrashWorkload.LogTree && o.Value.Length >= 9 * 1024), 15, 50);
        Assert.Equal(100, ops.Count(o => o.Kind == CrashOperationKind.Delete && o.Tree == CrashWorkload.LogTree));
        Assert.Contains(ops, o => o.Kind == CrashOperationKind.Delete && o.Tree == CrashWorkload.StateTree);
        Assert.Equal(["log", "state", "meta", "t1", "t2", "t3", "t4"],
            ops.Where(o => o.Kind == CrashOperationKind.CreateTree).Select(o => o.Tree));
        Assert.Equal(["t1"], ops.Where(o => o.Kind == CrashOperationKind.DeleteTree).Select(o => o.Tree));
        // Between its creation at 194 and the next at 291, every 7th transaction adds a key to t2.
        Assert.Equal(Enumerable.Range(195, 96).Count(i => i % 7 == 0),
            ops.Count(o => o.Kind == CrashOperationKind.Put && o.Tree == "t2" && BinaryPrimitives.ReadInt64BigEndian(o.Key) > 194));
    }

    [Fact]
    public void Large_values_put_multi_page_runs_of_many_sizes_in_about_one_transaction_in_five()
    {
        var large = Enumerable.Range(1, 1000).Select(i => new CrashWorkload(Seed, largeValues: true).Transaction(i))
            .Select(ops => ops.Single(o => o.Kind == CrashOperationKind.Put && o.Tree == CrashWorkload.LogTree).Value.Length)
            .Where(length => length > 40 * 1024).ToList();
        var plain = Enumerable.Range(1, 1000).SelectMany(i => new CrashWorkload(Seed).Transaction(i));

        Assert.InRange(large.Count, 150, 250);
        Assert.All(large, length => Assert.InRange(length, 40 * 1024, 400 * 1024));
        // Runs of many page counts, so a freed run is reallocated in other shapes.
        Assert.True(large.Select(length => length / 8192).Distinct().Count() > 30);
        Assert.DoesNotContain(plain, o => o.Value.Length > 40 * 1024);
        Assert.Equal(new CrashWorkload(Seed, largeValues: true).Transaction(5).Select(Describe), new CrashWorkload(Seed, true).Transaction(5).Select(Describe));
    }

    [Fact]
    public void The_workload_depends_on_the_seed_and_nothing_else()
    {
        var first = new CrashWorkload(Seed).Transaction(13 * 20);
        var again = new CrashWorkload(Seed).Transaction(13 * 20);
        var other = new CrashWorkload(Seed + 1).Transaction(13 * 20);
        Assert.Equal(first.Select(Describe), again.Select(Describe));
        Assert.NotEqual(first.Select(Describe), other.Select(Describe));
    }

    private static string Describe(CrashOperation op) => $"{op.Kind} {op.Tree} {Convert.ToHexString(op.Key)} {Convert.ToHexString(op.Value)}";
}
