using Cairn.Journal.Sharing;

namespace Cairn.Tests.Sharing;

/// <summary>
/// The rule that sets how many shared writes a journal group keeps on the device, fed settled writes on a fake clock:
/// it starts at one, grows while one more write in flight carries more commits per second, comes down when it does
/// not (fewer, fuller writes), waits a while before it probes again, ignores the time the group was idle, and stays
/// within 1 and the configured maximum.
/// </summary>
public sealed class WritesInFlightPolicyTests
{
    // Writes enough for one trial of two windows, each opened by a settlement and preceded by the old limit's writes.
    private const int TrialWrites = 2 * (WritesInFlightPolicy.Window + 1) + 8;

    /// <summary>A device that at each limit settles a write every <c>Ticks</c>, each carrying <c>Commits</c>.</summary>
    private sealed class FakeDevice(Func<int, (long Ticks, int Commits)> atLimit)
    {
        public long Clock { get; set; }

        public void Feed(WritesInFlightPolicy policy, int writes)
        {
            for (int i = 0; i < writes; i++)
            {
                var (ticks, commits) = atLimit(policy.Limit);
                long sent = Clock;
                Clock += ticks;
                policy.Observe(sent, Clock, commits);
            }
        }
    }

    // Parallel: n writes in flight settle n times as often, each carrying what one did.
    private static FakeDevice Parallel() => new(limit => (1000 / limit, 9));

    // Serialising: the same writes per second at any limit, the waiting commits split among the writes in flight.
    private static FakeDevice Queueing() => new(limit => (1000, 9 / limit));

    [Fact]
    public void It_starts_at_one_and_grows_while_each_level_carries_more_up_to_the_maximum()
    {
        var policy = new WritesInFlightPolicy(maximum: 4);
        var device = Parallel();
        Assert.Equal(1, policy.Limit);
        device.Feed(policy, WritesInFlightPolicy.Window);
        Assert.Equal(1, policy.Limit); // the first window measures one
        device.Feed(policy, 3 * TrialWrites);
        Assert.Equal(4, policy.Limit);
        device.Feed(policy, 20 * TrialWrites);
        Assert.Equal(4, policy.Limit); // its downward trials find four ahead of three
        Assert.True(policy.Judged.Trials >= 4, $"{policy.Judged}");
    }

    [Fact]
    public void It_stays_at_one_where_writes_queue_and_probes_again_only_after_its_hold()
    {
        var policy = new WritesInFlightPolicy(maximum: 4);
        var device = Queueing();
        int[] limits = new int[40 * TrialWrites];
        for (int i = 0; i < limits.Length; i++)
        {
            device.Feed(policy, 1);
            limits[i] = policy.Limit;
        }
        Assert.Equal(1, policy.Limit);
        Assert.Equal(2, limits.Max()); // it tried two, never three
        // Probes are rare: most writes ran at one, and at least a hold of windows lies between two probes.
        double atOne = limits.Count(l => l == 1) / (double)limits.Length;
        Assert.True(atOne > 0.8, $"{atOne:P0} of the writes at one");
        var (trials, moves) = policy.Judged;
        Assert.True(trials >= 2 && moves == 0, $"{trials} trials, {moves} moves");
        int probes = 0;
        for (int i = 1; i < limits.Length; i++)
            if (limits[i] == 2 && limits[i - 1] == 1)
                probes++;
        Assert.True(probes <= limits.Length / (WritesInFlightPolicy.HoldWindows * WritesInFlightPolicy.Window) + 1, $"{probes} probes");
    }

    [Fact]
    public void It_follows_a_device_that_becomes_capped_down_to_one()
    {
        bool capped = false;
        var policy = new WritesInFlightPolicy(maximum: 4);
        var device = new FakeDevice(limit => capped ? (1000, 9 / limit) : (1000 / limit, 9));
        device.Feed(policy, 5 * TrialWrites);
        Assert.Equal(4, policy.Limit);
        capped = true;
        // At most a hold and one trial per level on the way down (each downward trial lost by the upper level goes on).
        device.Feed(policy, (WritesInFlightPolicy.HoldWindows + 1) * (WritesInFlightPolicy.Window + 1) + 4 * TrialWrites);
        Assert.Equal(1, policy.Limit);
    }

    [Fact]
    public void Its_first_window_is_not_judged_however_slow_it_was()
    {
        // A device that runs writes in parallel, whose first window (cold code, new files) ran ten times slower: a trial
        // that measured one there would keep two on that alone; it measures one after it, and two does not carry 5 % more.
        var policy = new WritesInFlightPolicy(maximum: 2);
        int settled = 0;
        var device = new FakeDevice(limit => ++settled <= WritesInFlightPolicy.Window + 1 ? (10_000, 9) : (1000, limit == 1 ? 9 : 4));
        device.Feed(policy, 10 * TrialWrites);
        Assert.True(policy.Judged.Trials >= 1 && policy.Judged.Moves == 0, $"{policy.Judged}"); // (it may be probing two now)
    }

    [Fact]
    public void A_gain_below_the_margin_keeps_fewer_writes()
    {
        // Two carry 3 % more per second than one: noise, not a device that runs writes in parallel.
        var policy = new WritesInFlightPolicy(maximum: 2);
        var device = new FakeDevice(limit => limit == 1 ? (1030, 9) : (1000, 9));
        device.Feed(policy, 10 * TrialWrites);
        Assert.True(policy.Judged.Trials >= 1 && policy.Judged.Moves == 0, $"{policy.Judged}"); // (it may be probing two now)
    }

    [Fact]
    public void Time_the_group_was_idle_does_not_count_against_a_level()
    {
        // A parallel device, but while two are allowed the callers pause once for a long while (between bench
        // rounds, say): measured across that pause two would seem to carry far less than one.
        var policy = new WritesInFlightPolicy(maximum: 2);
        var device = Parallel();
        device.Feed(policy, WritesInFlightPolicy.Window + 1); // the first window passes unjudged
        device.Feed(policy, WritesInFlightPolicy.Window);
        Assert.Equal(1, policy.Limit);
        device.Feed(policy, 1 + 2 + 1 + 10); // one's window closes, the writes sent at one settle, two's opens, 10 counted
        Assert.Equal(2, policy.Limit);
        device.Clock += 1_000_000;
        device.Feed(policy, 2 * WritesInFlightPolicy.Window);
        Assert.Equal(2, policy.Limit);
        Assert.Equal((1, 1), policy.Judged);
    }

    [Fact]
    public void A_fixed_policy_and_a_maximum_of_one_never_move()
    {
        var one = new WritesInFlightPolicy(maximum: 1);
        Parallel().Feed(one, 10 * TrialWrites);
        Assert.Equal(1, one.Limit);
        var fixedTwo = WritesInFlightPolicy.Fixed(2);
        Assert.Equal(2, fixedTwo.Limit);
        Queueing().Feed(fixedTwo, 10 * TrialWrites);
        Parallel().Feed(fixedTwo, 10 * TrialWrites);
        Assert.Equal(2, fixedTwo.Limit);
        var clamped = new WritesInFlightPolicy(maximum: 0);
        Assert.Equal((1, 1), (clamped.Maximum, clamped.Limit));
    }
}
