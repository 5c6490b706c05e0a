using Cairn.Stress;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Durability;

/// <summary>
/// Stress campaigns (Cairn.Stress) on one environment: a child process commits the stress workload and
/// acknowledges each transaction after its commit returns; the campaign SIGKILLs it at random moments and at
/// named points inside the engine, reopens the environment and checks that every acknowledged transaction is
/// there, none is half-applied, there are no holes, <see cref="StorageEnvironment.Verify"/> passes, and the
/// recovered environment works (it commits the next transactions, checkpoints, verifies and closes cleanly).
/// Each cycle runs flushing every few milliseconds or never flushing, at random; a quarter of the kills leave
/// recovery to the next child; a reader checks snapshot invariants while the writers write; the last child is
/// stopped cleanly and owes every transaction exactly.
/// </summary>
/// <remarks>
/// <c>CAIRN_CRASH_CYCLES</c>, <c>CAIRN_CRASH_MERGER_CYCLES</c>, <c>CAIRN_CRASH_LARGE_CYCLES</c> and <c>CAIRN_CRASH_LAZY_CYCLES</c> set the kill
/// counts; <c>CAIRN_CRASH_SEED</c> replays a campaign's workload and choices (the kill moments themselves depend
/// on timing and cannot be replayed exactly). <c>cairn stress</c> runs the same campaigns for longer.
/// </remarks>
public class ProcessCrashTests(ITestOutputHelper output)
{
    private const int DefaultKills = 200;
    private const int DefaultMergerKills = 100;
    private const int DefaultLargeKills = 60;
    private const int DefaultLazyKills = 80;

    [Fact]
    public Task Every_acknowledged_transaction_survives_SIGKILL_and_nothing_is_half_applied()
        => Campaigns.KillAsync("process-crash", "CAIRN_CRASH_CYCLES", DefaultKills, o => o with { Writers = 1, Callers = 0, Readers = 1 }, output);

    /// <summary>Large values (runs of 5 to 50 pages, freed and reallocated in other shapes), with a writer and up to 16 merger callers.</summary>
    [Fact]
    public Task Every_acknowledged_transaction_of_large_values_survives_SIGKILL()
        => Campaigns.KillAsync("process-crash-large", "CAIRN_CRASH_LARGE_CYCLES", DefaultLargeKills,
            o => o with { Workload = WorkloadShape.LargeValues, Writers = 1, Callers = 16, Readers = 1 }, output);

    /// <summary>
    /// Lazy and durable commits mixed (two writers, three commits in four lazy, and up to 8 merger callers): a kill
    /// leaves a prefix of the commit order holding every transaction the journal had acknowledged, nothing half.
    /// </summary>
    [Fact]
    public Task Lazy_and_durable_commits_mixed_keep_a_prefix_with_every_acknowledged_transaction_through_SIGKILL()
        => Campaigns.KillAsync("process-crash-lazy", "CAIRN_CRASH_LAZY_CYCLES", DefaultLazyKills,
            o => o with { Writers = 2, Callers = 8, Readers = 1, LazyCommits = true }, output);

    /// <summary>Up to 64 concurrent callers through the transaction merger (a different number each cycle): every acknowledged operation survives.</summary>
    [Fact]
    public Task Every_operation_acknowledged_by_the_merger_survives_SIGKILL()
        => Campaigns.KillAsync("process-crash-merger", "CAIRN_CRASH_MERGER_CYCLES", DefaultMergerKills, o => o with { Writers = 0, Callers = 64, Readers = 1 }, output);

    /// <summary>
    /// A soak run (no kills: writers, callers and readers for a few seconds, stopped cleanly, every transaction owed
    /// exactly), then a second one that goes on in the same directory from where the first stopped.
    /// </summary>
    [Fact]
    public async Task A_child_that_stops_cleanly_keeps_every_acknowledged_transaction_and_the_next_goes_on_from_there()
    {
        using var dir = new TestDirectory("process-soak");
        var options = Campaigns.Options(dir.Path) with { Writers = 2, Callers = 16, Readers = 2 };
        var first = await Campaigns.SoakAsync(options with { Duration = TimeSpan.FromSeconds(8) }, output);
        var second = await Campaigns.SoakAsync(options with { Duration = TimeSpan.FromSeconds(2) }, output);
        Assert.True(first.Acknowledged > 0 && second.Acknowledged > 0);
    }
}
