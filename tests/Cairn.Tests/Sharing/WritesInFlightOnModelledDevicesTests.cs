using Cairn.Journal.Sharing;

namespace Cairn.Tests.Sharing;

/// <summary>
/// The in-flight rule driving a simulated journal group of nine environments (one caller each) on modelled devices,
/// judged by what it is for: commits per second against the best fixed limit on the same device. Where the device
/// serialises writes (an IOPS cap, alone or shared with the members' other writes), one write at a time, each carrying
/// every waiting commit, is best; where it runs them in parallel, more in flight is.
/// </summary>
public sealed class WritesInFlightOnModelledDevicesTests
{
    private const int Environments = 9;
    private const long Warmup = 2_000_000; // simulated microseconds
    private const long Measured = 8_000_000;
    // The shortest window the rule measures, in simulated microseconds: what production sets (several throttle slices).
    private const long SimulatedMinWindow = 300_000;

    private static (double CommitsPerSecond, double CommitsPerWrite, int Limit) Run(
        Func<GroupDeviceSimulation.Device> device, long meanPause, WritesInFlightPolicy policy, WriteGather? gather = null)
    {
        var simulation = new GroupDeviceSimulation(device(), Environments, meanPause, () => policy.Limit,
            (settled, _, deviceTime, commits) => policy.Observe(settled - deviceTime, settled, commits), gather: gather);
        simulation.RunUntil(Warmup);
        simulation.Measure();
        simulation.RunUntil(Warmup + Measured);
        return (simulation.CommitsPerSecond, simulation.CommitsPerWrite, policy.Limit);
    }

    private static void AssertAsGoodAsTheBestFixedLimit(Func<GroupDeviceSimulation.Device> device, long meanPause, int expectedBest)
    {
        var fixedRates = Enumerable.Range(1, 4).Select(limit => Run(device, meanPause, WritesInFlightPolicy.Fixed(limit))).ToArray();
        int best = Array.FindIndex(fixedRates, r => r.CommitsPerSecond == fixedRates.Max(f => f.CommitsPerSecond)) + 1;
        Assert.Equal(expectedBest, best); // the model is what the test says it is
        var learnt = Run(device, meanPause, new WritesInFlightPolicy(maximum: 4, SimulatedMinWindow));
        string figures = $"learnt {learnt.CommitsPerSecond:F0}/s at {learnt.CommitsPerWrite:F2} per write, limit {learnt.Limit}; fixed 1-4: " +
            string.Join(", ", fixedRates.Select(r => $"{r.CommitsPerSecond:F0}/s at {r.CommitsPerWrite:F2}"));
        Assert.True(learnt.CommitsPerSecond >= 0.9 * fixedRates[best - 1].CommitsPerSecond, figures);
    }

    [Fact]
    public void On_a_capped_device_shared_with_other_writes_it_sends_fewer_fuller_writes()
    {
        // 700 µs a write (about 1,430 writes a second, as a 3,000-IOPS cap at 2.1 operations a write), one other
        // writer always queued: a second write in flight takes a larger share of the cap (the group's writes per
        // second rise by a third) and its latency grows by half, not double, yet each write carries half as much.
        AssertAsGoodAsTheBestFixedLimit(() => new GroupDeviceSimulation.QueueingDevice(service: 700, otherWriters: 1), meanPause: 100, expectedBest: 1);
    }

    [Fact]
    public void On_a_capped_device_alone_it_sends_fewer_fuller_writes()
    {
        AssertAsGoodAsTheBestFixedLimit(() => new GroupDeviceSimulation.QueueingDevice(service: 700, otherWriters: 0), meanPause: 100, expectedBest: 1);
    }

    /// <summary>
    /// The cap as blk-throttle applies it, in bursts: 100 ms slices of 143 writes each (about 1,430 a second, as the
    /// queueing device above), run at a parallel device's 150 µs. Within a burst more writes in flight carry more per
    /// second; over whole slices the budget of writes is the same at any limit, so the fuller writes of one in flight
    /// carry most. A rule that judged the levels within bursts, or took a stall for the group being idle, would climb.
    /// </summary>
    [Fact]
    public void On_a_device_throttled_in_bursty_slices_it_sends_fewer_fuller_writes()
    {
        Func<GroupDeviceSimulation.Device> device = () => new GroupDeviceSimulation.ThrottledDevice(latency: 150, slice: 100_000, budget: 143);
        var fixedOne = Run(device, meanPause: 100, WritesInFlightPolicy.Fixed(1), new WriteGather(maxWaitTicks: 2_000));
        var fixedTwo = Run(device, meanPause: 100, WritesInFlightPolicy.Fixed(2), new WriteGather(maxWaitTicks: 2_000));
        var learnt = Run(device, meanPause: 100, new WritesInFlightPolicy(maximum: 4, SimulatedMinWindow), new WriteGather(maxWaitTicks: 2_000));
        string figures = $"learnt {learnt.CommitsPerSecond:F0}/s at {learnt.CommitsPerWrite:F2} per write, limit {learnt.Limit}; " +
            $"fixed 1 {fixedOne.CommitsPerSecond:F0}/s at {fixedOne.CommitsPerWrite:F2}; fixed 2 {fixedTwo.CommitsPerSecond:F0}/s at {fixedTwo.CommitsPerWrite:F2}";
        Assert.True(fixedOne.CommitsPerSecond > 1.2 * fixedTwo.CommitsPerSecond, figures); // the model is what the test says it is
        Assert.True(learnt.CommitsPerSecond >= 0.9 * fixedOne.CommitsPerSecond, figures);
    }

    [Fact]
    public void On_a_device_that_runs_writes_in_parallel_it_keeps_more_in_flight()
    {
        AssertAsGoodAsTheBestFixedLimit(() => new GroupDeviceSimulation.ParallelDevice(latency: 1000), meanPause: 300, expectedBest: 4);
    }

    /// <summary>
    /// The cohort effect: at one write in flight with no wait, the environments a write released commit again while the
    /// next write (carrying the others) is already on the device, so two cohorts alternate and each write carries about
    /// half of the nine. Waiting up to half a write for the released ones merges them.
    /// </summary>
    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    public void At_one_in_flight_the_gather_merges_the_cohorts_on_a_capped_device(int otherWriters)
    {
        Func<GroupDeviceSimulation.Device> device = () => new GroupDeviceSimulation.QueueingDevice(service: 700, otherWriters);
        var plain = Run(device, meanPause: 100, WritesInFlightPolicy.Fixed(1));
        var gathered = Run(device, meanPause: 100, WritesInFlightPolicy.Fixed(1), new WriteGather(maxWaitTicks: 2_000));
        var learnt = Run(device, meanPause: 100, new WritesInFlightPolicy(maximum: 4, SimulatedMinWindow), new WriteGather(maxWaitTicks: 2_000));
        string figures = $"no wait {plain.CommitsPerSecond:F0}/s at {plain.CommitsPerWrite:F2} per write; gathered {gathered.CommitsPerSecond:F0}/s at " +
            $"{gathered.CommitsPerWrite:F2}; learnt limit with the gather {learnt.CommitsPerSecond:F0}/s at {learnt.CommitsPerWrite:F2}";
        Assert.True(plain.CommitsPerWrite < 6.5, figures); // the model shows the cohorts
        Assert.True(gathered.CommitsPerWrite >= 1.25 * plain.CommitsPerWrite, figures);
        Assert.True(gathered.CommitsPerSecond >= 1.1 * plain.CommitsPerSecond, figures);
        Assert.True(learnt.CommitsPerSecond >= 0.9 * gathered.CommitsPerSecond, figures);
    }

    [Fact]
    public void On_a_device_that_runs_writes_in_parallel_the_gather_costs_nothing()
    {
        Func<GroupDeviceSimulation.Device> device = () => new GroupDeviceSimulation.ParallelDevice(latency: 1000);
        var best = Run(device, meanPause: 300, WritesInFlightPolicy.Fixed(4));
        var learnt = Run(device, meanPause: 300, new WritesInFlightPolicy(maximum: 4, SimulatedMinWindow), new WriteGather(maxWaitTicks: 2_000));
        Assert.True(learnt.CommitsPerSecond >= 0.9 * best.CommitsPerSecond,
            $"learnt with the gather {learnt.CommitsPerSecond:F0}/s (limit {learnt.Limit}); fixed 4 {best.CommitsPerSecond:F0}/s");
    }
}
