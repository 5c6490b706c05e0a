using Cairn.Journal.Sharing;

namespace Cairn.Tests.Sharing;

/// <summary>
/// The gather on a fake clock: after a write settles at one in flight, the next write waits until every member it
/// released is back, never past the smoothed write time nor the cap, never when it may not gather (writes in
/// parallel), and counts how many released members were back in time.
/// </summary>
public sealed class WriteGatherTests
{
    private const long Cap = 10_000;

    [Fact]
    public void The_next_write_waits_for_the_released_members_until_all_are_back()
    {
        var gather = new WriteGather(Cap);
        gather.Settled(now: 1_000, writeTicks: 1_000, released: 3, gather: true);
        Assert.Equal(1_000, gather.WaitFor(now: 1_000, batchFull: false)); // a whole write time from the settlement
        Assert.False(gather.Returned());
        Assert.Equal(900, gather.WaitFor(now: 1_100, batchFull: false));
        Assert.False(gather.Returned());
        // A member slower than half a write (stop 41's bound) is still waited for.
        Assert.Equal(300, gather.WaitFor(now: 1_700, batchFull: false));
        Assert.True(gather.Returned()); // the third: all back
        Assert.Equal(0, gather.WaitFor(now: 1_750, batchFull: false));
        gather.BatchTaken(waited: true);
        Assert.Equal((3L, 3L), gather.Cohorts);
        Assert.Equal(1, gather.Waits);
    }

    [Fact]
    public void It_never_waits_past_the_smoothed_write_time_nor_the_cap()
    {
        var gather = new WriteGather(Cap);
        gather.Settled(now: 0, writeTicks: 1_000, released: 9, gather: true);
        Assert.Equal(1, gather.WaitFor(now: 999, batchFull: false));
        Assert.Equal(0, gather.WaitFor(now: 1_000, batchFull: false)); // the deadline, with members still out
        gather.BatchTaken(waited: true);
        Assert.Equal((9L, 0L), gather.Cohorts);

        // One write held for a long time (a stall) moves the smoothed time by an eighth only; the cap bounds the rest.
        gather.Settled(now: 10_000, writeTicks: 1_000_000, released: 2, gather: true);
        Assert.Equal(Cap, gather.WaitFor(now: 10_000, batchFull: false));
        gather.BatchTaken(waited: false);
        var small = new WriteGather(Cap);
        small.Settled(now: 0, writeTicks: 1_000, released: 2, gather: true);
        small.Settled(now: 0, writeTicks: 9_000, released: 2, gather: true);
        Assert.Equal(2_000, small.WaitFor(now: 0, batchFull: false)); // 1,000 + (9,000 - 1,000) / 8 = 2,000 smoothed
    }

    [Fact]
    public void It_does_not_wait_when_it_may_not_gather_nor_when_the_batch_is_full()
    {
        var gather = new WriteGather(Cap);
        gather.Settled(now: 0, writeTicks: 1_000, released: 4, gather: false); // writes in parallel
        Assert.Equal(0, gather.WaitFor(now: 0, batchFull: false)); // members out, the whole bound left: still no wait
        gather.BatchTaken(waited: false);
        Assert.Equal((4L, 0L), gather.Cohorts); // still counted: how many were back without a wait

        gather.Settled(now: 0, writeTicks: 1_000, released: 4, gather: true);
        Assert.Equal(0, gather.WaitFor(now: 0, batchFull: true));
        gather.Settled(now: 0, writeTicks: 1_000, released: 0, gather: true); // nobody released (nothing to wait for)
        Assert.Equal(0, gather.WaitFor(now: 0, batchFull: false));
    }

    [Fact]
    public void Members_back_after_the_next_batch_was_taken_count_for_nobody()
    {
        var gather = new WriteGather(Cap);
        gather.Settled(now: 0, writeTicks: 1_000, released: 2, gather: true);
        Assert.False(gather.Returned());
        gather.BatchTaken(waited: false);
        Assert.False(gather.Returned()); // late: the next write already left
        Assert.Equal(0, gather.WaitFor(now: 0, batchFull: false)); // and nothing is gathering until the next settlement
        Assert.Equal((2L, 1L), gather.Cohorts);
    }
}
