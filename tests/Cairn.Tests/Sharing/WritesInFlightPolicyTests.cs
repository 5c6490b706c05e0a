using Cairn.Journal.Sharing;

namespace Cairn.Tests.Sharing;

/// <summary>
/// The rule that sets how many shared writes a journal group keeps on the device, fed synthetic device times (no
/// clock): it grows while a write takes about as long with one more beside it, shrinks when writes only queue (the
/// latency grows with the number in flight), stays in between, waits a while before it probes again, and stays
/// within 1 and the configured maximum.
/// </summary>
public sealed class WritesInFlightPolicyTests
{
    private static void Feed(WritesInFlightPolicy policy, int inFlight, long latency, int writes)
    {
        for (int i = 0; i < writes; i++)
            policy.Observe(inFlight, latency);
    }

    [Fact]
    public void It_starts_at_one_and_grows_while_the_latency_per_write_stays_flat_up_to_the_maximum()
    {
        var policy = new WritesInFlightPolicy(maximum: 4);
        Assert.Equal(1, policy.Limit);
        Feed(policy, 1, 100, WritesInFlightPolicy.Window - 1);
        Assert.Equal(1, policy.Limit);
        Feed(policy, 1, 100, 1);
        Assert.Equal(2, policy.Limit);
        Feed(policy, 2, 110, WritesInFlightPolicy.Window);
        Assert.Equal(3, policy.Limit);
        Feed(policy, 3, 120, WritesInFlightPolicy.Window);
        Assert.Equal(4, policy.Limit);
        Feed(policy, 4, 125, 10 * WritesInFlightPolicy.Window);
        Assert.Equal(4, policy.Limit);
    }

    [Fact]
    public void It_shrinks_when_writes_queue_and_probes_again_only_after_its_hold()
    {
        var policy = new WritesInFlightPolicy(maximum: 2);
        Feed(policy, 1, 100, WritesInFlightPolicy.Window);
        Assert.Equal(2, policy.Limit);
        // Two at once take twice as long each: the device queues them (an IOPS cap), so fuller writes one at a time.
        Feed(policy, 2, 200, WritesInFlightPolicy.Window);
        Assert.Equal(1, policy.Limit);
        Feed(policy, 1, 100, WritesInFlightPolicy.HoldWindows * WritesInFlightPolicy.Window);
        Assert.Equal(1, policy.Limit);
        Feed(policy, 1, 100, WritesInFlightPolicy.Window);
        Assert.Equal(2, policy.Limit);
        // Still queueing: back down at once.
        Feed(policy, 2, 190, WritesInFlightPolicy.Window);
        Assert.Equal(1, policy.Limit);
    }

    [Fact]
    public void Only_writes_that_ran_at_the_limit_lead_to_a_judgement()
    {
        var policy = new WritesInFlightPolicy(maximum: 3);
        Feed(policy, 1, 100, WritesInFlightPolicy.Window);
        Assert.Equal(2, policy.Limit);
        // The load never puts two on the device: nothing is learnt about two, so the limit stays.
        Feed(policy, 1, 100, 20 * WritesInFlightPolicy.Window);
        Assert.Equal(2, policy.Limit);
        // 1.5x at two: partly parallel (two writes in 1.5 times the time), so it stays.
        Feed(policy, 2, 150, WritesInFlightPolicy.Window);
        Assert.Equal(2, policy.Limit);
        // Nearly twice as long at two: the second write only queued.
        Feed(policy, 2, 190, 2 * WritesInFlightPolicy.Window);
        Assert.Equal(1, policy.Limit);
    }

    [Fact]
    public void A_fixed_policy_and_a_maximum_of_one_never_move()
    {
        var one = new WritesInFlightPolicy(maximum: 1);
        Feed(one, 1, 100, 10 * WritesInFlightPolicy.Window);
        Assert.Equal(1, one.Limit);
        var fixedTwo = WritesInFlightPolicy.Fixed(2);
        Assert.Equal(2, fixedTwo.Limit);
        Feed(fixedTwo, 2, 1000, 10 * WritesInFlightPolicy.Window);
        Feed(fixedTwo, 1, 10, 10 * WritesInFlightPolicy.Window);
        Assert.Equal(2, fixedTwo.Limit);
        var clamped = new WritesInFlightPolicy(maximum: 0);
        Assert.Equal((1, 1), (clamped.Maximum, clamped.Limit));
    }
}
