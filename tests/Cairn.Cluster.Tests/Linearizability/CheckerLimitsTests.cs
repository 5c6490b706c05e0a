namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>The search limit ends in an explicit unknown verdict, never in a pass, and spares the other partitions.</summary>
public class CheckerLimitsTests
{
    private static History OneBusyKey(int seed) =>
        HistoryGenerator.Generate(new GeneratorSettings(seed, Operations: 2_000, Keys: 1, Clients: 10)).History;

    [Fact]
    public void A_linearizable_history_past_the_step_limit_is_unknown()
    {
        var history = OneBusyKey(1);
        Assert.Equal(Verdict.Linearizable, LinearizabilityChecker.Check(history, KeyValueRegisterModel.Instance).Verdict);
        var limited = LinearizabilityChecker.Check(history, KeyValueRegisterModel.Instance, new CheckLimits(MaxStepsPerPartition: 100));
        Assert.Equal(Verdict.Unknown, limited.Verdict);
        Assert.StartsWith("unknown: search limit reached", limited.Explain());
        Assert.Contains("longest linearizable prefix found", limited.Explain());
    }

    [Fact]
    public void A_history_past_its_time_limit_is_unknown()
    {
        var limited = LinearizabilityChecker.Check(OneBusyKey(2), KeyValueRegisterModel.Instance, new CheckLimits(long.MaxValue, Timeout: TimeSpan.Zero));
        Assert.Equal(Verdict.Unknown, limited.Verdict);
    }

    [Fact]
    public void A_partition_past_the_limit_does_not_hide_another_that_fails()
    {
        var busy = OneBusyKey(3).Operations;
        var broken = new HistoryBuilder()
            .Put(1, "y", "a", 0, 10)
            .Get(2, "y", "never", 20, 30)
            .Build().Operations.Select(o => o with { Id = o.Id + busy.Count });
        var history = new History(busy.Concat(broken), 1000);
        var result = LinearizabilityChecker.Check(history, KeyValueRegisterModel.Instance, new CheckLimits(MaxStepsPerPartition: 100));
        Assert.Equal(Verdict.NotLinearizable, result.Verdict);
        Assert.Equal(Verdict.Unknown, Assert.Single(result.Partitions, p => p.Name == "\"k0\"").Verdict);
        Assert.Equal(Verdict.NotLinearizable, Assert.Single(result.Partitions, p => p.Name == "\"y\"").Verdict);
    }

    [Fact]
    public void A_history_past_its_memo_size_is_unknown()
    {
        var limited = LinearizabilityChecker.Check(OneBusyKey(4), KeyValueRegisterModel.Instance, new CheckLimits(long.MaxValue, MaxMemoBytesPerPartition: 10_000));
        Assert.Equal(Verdict.Unknown, limited.Verdict);
    }
}
