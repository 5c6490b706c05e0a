using System.Buffers.Binary;
using Cairn.Stress;
using Cairn.Stress.Checking;
using Cairn.Stress.Protocol;
using Cairn.Stress.Workload;
using Cairn.Tests.Support;

namespace Cairn.Tests.Harness;

/// <summary>The stress workload, its expected state and the checker, in-process: the harness must be right before its verdicts mean anything.</summary>
public class WorkloadTests
{
    private const long Seed = 20240611;

    [Fact]
    public void The_engine_and_the_model_agree_on_the_workload_across_reopens()
    {
        using var dir = new TestDirectory("stress-workload");
        var options = StorageSettings.Flushing.ToStorageOptions(dir.Path);
        var workload = new StressWorkload(Seed, new WorkloadShape());
        var model = new StressModel(workload);
        long last = 0;
        foreach (long upTo in new long[] { 150, 320, 450 })
        {
            using var env = StorageEnvironment.Open(options);
            Assert.Equal(last, Clean(StateInspection.Inspect(env, model, new TransactionBounds(last, last))).Last);
            workload.Commit(env, last + 1, upTo);
            last = Clean(StateInspection.Inspect(env, model, new TransactionBounds(upTo, upTo))).Last;
            Assert.Equal(upTo, last);
        }
        Assert.Equal(450, model.Position);
    }

    [Fact]
    public void The_workload_reaches_overflow_pages_page_reuse_deletes_and_tree_directory_changes()
    {
        var workload = new StressWorkload(Seed, new WorkloadShape());
        var ops = Enumerable.Range(1, 400).SelectMany(i => workload.Transaction(i)).ToList();

        Assert.InRange(ops.Count(o => o.Kind == StressOperationKind.Put && o.Tree == StressWorkload.LogTree && o.Value.Length >= 9 * 1024), 15, 50);
        Assert.Equal(100, ops.Count(o => o.Kind == StressOperationKind.Delete && o.Tree == StressWorkload.LogTree));
        Assert.InRange(ops.Count(o => o.Kind == StressOperationKind.Delete && o.Tree.StartsWith('d')), 50, 300);
        Assert.Equal(400, ops.Count(o => o.Kind == StressOperationKind.Transfer));
        Assert.Equal(["meta", "accounts", "log", "d0", "d1", "d2", "d3", "t1", "t2", "t3", "t4"],
            ops.Where(o => o.Kind == StressOperationKind.CreateTree).Select(o => o.Tree));
        Assert.Equal(["t1"], ops.Where(o => o.Kind == StressOperationKind.DeleteTree).Select(o => o.Tree));
        // Between its creation at 194 and the next at 291, every 7th transaction adds a key to t2.
        Assert.Equal(Enumerable.Range(195, 96).Count(i => i % 7 == 0),
            ops.Count(o => o.Kind == StressOperationKind.Put && o.Tree == "t2" && BinaryPrimitives.ReadInt64BigEndian(o.Key) > 194));
    }

    [Fact]
    public void Large_values_put_multi_page_runs_of_many_sizes_in_about_one_transaction_in_five()
    {
        var large = Enumerable.Range(1, 1000).Select(i => new StressWorkload(Seed, WorkloadShape.LargeValues).Transaction(i))
            .Select(ops => ops.First(o => o.Kind == StressOperationKind.Put && o.Tree == StressWorkload.LogTree).Value.Length)
            .Where(length => length >= 40 * 1024).ToList();
        var plain = Enumerable.Range(1, 1000).SelectMany(i => new StressWorkload(Seed, new WorkloadShape()).Transaction(i));

        Assert.InRange(large.Count, 150, 250);
        Assert.All(large, length => Assert.InRange(length, 40 * 1024, 400 * 1024));
        // Runs of many page counts, so a freed run is reallocated in other shapes.
        Assert.True(large.Select(length => length / 8192).Distinct().Count() > 30);
        Assert.DoesNotContain(plain, o => o.Value.Length > 40 * 1024);
    }

    [Fact]
    public void The_shape_decides_trees_key_space_operation_counts_value_sizes_and_deletes()
    {
        var shape = new WorkloadShape { Trees = 2, KeySpace = 10, MinKeysPerTransaction = 5, MaxKeysPerTransaction = 5, MinValueBytes = 100, MaxValueBytes = 100, DeleteEvery = 0 };
        var transactions = Enumerable.Range(2, 300).Select(i => new StressWorkload(Seed, shape).Transaction(i)).ToList();
        var data = transactions.SelectMany(ops => ops).Where(o => o.Tree.StartsWith('d')).ToList();

        Assert.All(transactions, ops => Assert.Equal(5, ops.Count(o => o.Tree.StartsWith('d'))));
        Assert.Equal(["d0", "d1"], data.Select(o => o.Tree).Distinct().Order());
        Assert.InRange(data.Select(o => Convert.ToHexString(o.Key)).Distinct().Count(), 2, 10);
        Assert.All(data, o => Assert.Equal((StressOperationKind.Put, 100), (o.Kind, o.Value.Length)));
    }

    [Fact]
    public void The_workload_depends_on_the_seed_and_the_shape_and_nothing_else()
    {
        string Describe(long seed, WorkloadShape shape, long i)
            => string.Join("|", new StressWorkload(seed, shape).Transaction(i).Select(o => $"{o.Kind} {o.Tree} {Convert.ToHexString(o.Key)} {Convert.ToHexString(o.Value)} {o.Amount}"));

        Assert.Equal(Describe(Seed, new WorkloadShape(), 260), Describe(Seed, new WorkloadShape(), 260));
        Assert.NotEqual(Describe(Seed, new WorkloadShape(), 260), Describe(Seed + 1, new WorkloadShape(), 260));
        Assert.NotEqual(Describe(Seed, new WorkloadShape(), 260), Describe(Seed, new WorkloadShape { KeySpace = 7 }, 260));
        Assert.NotEqual(new StressWorkload(Seed, new WorkloadShape()).Marker, new StressWorkload(Seed, new WorkloadShape { Trees = 3 }).Marker);
    }

    /// <summary>
    /// The restart-and-grow shape: every log value 24 B to 1.3 MiB, the log key of transaction i − 4000 deleted, a tree of
    /// large values created every 37th transaction and the one three before it dropped; the default shape's marker
    /// does not change (directories of earlier campaigns are still recognised).
    /// </summary>
    [Fact]
    public void The_restart_grow_shape_puts_large_values_keeps_its_window_and_drops_trees_of_large_values()
    {
        var shape = WorkloadShape.RestartGrow;
        var workload = new StressWorkload(Seed, shape);
        var log = Enumerable.Range(1, 400).Select(i => workload.Transaction(i).First(o => o.Kind == StressOperationKind.Put && o.Tree == StressWorkload.LogTree).Value.Length).ToList();
        Assert.All(log, length => Assert.InRange(length, 24, 1_300 * 1024));
        Assert.True(log.Count(length => length > 8192) > 350, "most log values are overflow runs");
        Assert.Contains(workload.Transaction(4001), o => o.Kind == StressOperationKind.Delete && o.Tree == StressWorkload.LogTree && o.Key.SequenceEqual(StressWorkload.LogKey(1)));
        Assert.DoesNotContain(workload.Transaction(4000), o => o.Kind == StressOperationKind.Delete && o.Tree == StressWorkload.LogTree);

        var dropping = workload.Transaction(4 * 37);
        Assert.Contains(dropping, o => o.Kind == StressOperationKind.CreateTree && o.Tree == StressWorkload.ExtraTree(4));
        Assert.Contains(dropping, o => o.Kind == StressOperationKind.DeleteTree && o.Tree == StressWorkload.ExtraTree(1));
        Assert.All(dropping.Where(o => o.Kind == StressOperationKind.Put && o.Tree == StressWorkload.ExtraTree(4)),
            o => Assert.InRange(o.Value.Length, 24, 1_300 * 1024));
        Assert.True(workload.Transaction(37).Where(o => o.Tree == StressWorkload.ExtraTree(1)).Max(o => o.Value.Length) > 8192);
        Assert.DoesNotContain(new WorkloadShape().Describe(), "window");
        Assert.Contains("log-window=4000 extra-tree-every=37 large-extra-trees", shape.Describe());
    }

    [Fact]
    public void A_shape_out_of_range_is_refused_with_its_name()
    {
        var e = Assert.Throws<ArgumentException>(() => new StressWorkload(Seed, new WorkloadShape { MinValueBytes = 4 }));
        Assert.Contains("MaxValueBytes", e.Message);
        Assert.Throws<ArgumentException>(() => new WorkloadShape { Trees = 0 }.Validate());
    }

    private static InspectionResult Clean(InspectionResult result)
    {
        Assert.True(result.IsClean, string.Join(System.Environment.NewLine, result.Problems));
        return result;
    }
}
