using Cairn.Journal;
using Cairn.Paging;
using static Cairn.Tests.Flushing.FlushHarness;

namespace Cairn.Tests.Flushing;

/// <summary>
/// The flush delay weighed against what a flush writes, through the scheduler (flush delay 1 s, sync interval 10 s,
/// small flushes up to the default 16 MiB): a commit of 4,200 pages (16.4 MiB of scratch memory) is a flush the
/// journal since the last flush may or may not cover. Journal positions are chosen, so each case is exact.
/// </summary>
public sealed class AgeFlushTests
{
    private const int Pages = 4_200;
    private static readonly long s_scratchBytes = (long)Pages * StorageConstants.PageSize;

    [Fact]
    public void A_large_flush_the_journal_does_not_cover_waits_while_writers_commit_and_goes_once_the_journal_covers_it()
    {
        using var h = new FlushHarness();
        WaitingLargeFlush(h);

        h.Clock.Advance(Seconds(0.25));
        h.CommitAt(new JournalPosition(1, s_scratchBytes + (1 << 20)), 1_000_001);
        h.Scheduler.RunCycle();
        Assert.Single(h.Target.Calls);
        Assert.StartsWith("write 3 after 0:", h.Target.Calls[0]);

        // Counted from the flush's position now, not from the synced one (nothing is synced yet).
        h.Target.Calls.Clear();
        h.CommitAt(new JournalPosition(1, s_scratchBytes + (2 << 20)), PageRange(2_000_000));
        h.Clock.Advance(Seconds(1));
        h.CommitAt(new JournalPosition(1, s_scratchBytes + (3 << 20)), 3_000_000);
        h.Scheduler.RunCycle();
        Assert.Empty(h.Target.Calls);
    }

    [Fact]
    public void A_large_flush_goes_once_the_writers_are_quiet_for_a_flush_delay()
    {
        using var h = new FlushHarness();
        WaitingLargeFlush(h);

        h.Clock.Advance(Seconds(0.5) - TimeSpan.FromTicks(1));
        h.Scheduler.RunCycle();
        Assert.Empty(h.Target.Calls);
        h.Clock.Advance(TimeSpan.FromTicks(1));
        h.Scheduler.RunCycle();
        Assert.Single(h.Target.Calls);
        Assert.StartsWith("write 2 after 0:", h.Target.Calls[0]);
    }

    [Fact]
    public void Busy_writers_hold_a_large_flush_back_for_at_most_the_sync_interval()
    {
        using var h = new FlushHarness();
        h.CommitAt(new JournalPosition(1, 1 << 20), PageRange(0));
        long offset = 1 << 20;
        for (int step = 1; step < 20; step++)
        {
            h.Clock.Advance(Seconds(0.5));
            offset += 4096;
            h.CommitAt(new JournalPosition(1, offset), 1_000_000 + step);
            h.Scheduler.RunCycle();
            Assert.Empty(h.Target.Calls);
        }

        h.Clock.Advance(Seconds(0.5)); // 10 s after the first commit (and the open: the sync interval is due too)
        h.Scheduler.RunCycle();
        Assert.StartsWith("write 20 after 0:", h.Target.Calls[0]);
        Assert.Equal(["sync", "header 20", "release journals up to 0"], h.Target.Calls.Skip(1));
    }

    /// <summary>
    /// Commits 16.4 MiB of pages at t = 0 and one more at t = 0.5 s, 2 MiB of journal in all, and runs the cycle at
    /// t = 1 s: the oldest has waited a flush delay, but the writers are busy and the journal does not cover the flush,
    /// so nothing is written and the cycle looks again when they would have been quiet for a flush delay (no busy loop).
    /// </summary>
    private static void WaitingLargeFlush(FlushHarness h)
    {
        h.CommitAt(new JournalPosition(1, 1 << 20), PageRange(0));
        h.Clock.Advance(Seconds(0.5));
        h.CommitAt(new JournalPosition(1, 2 << 20), 1_000_000);
        h.Clock.Advance(Seconds(0.5));
        Assert.Equal(Seconds(0.5), h.Scheduler.RunCycle());
        Assert.Empty(h.Target.Calls);
    }

    private static long[] PageRange(long first) => Enumerable.Range(0, Pages).Select(i => first + i).ToArray();

    private static TimeSpan Seconds(double seconds) => TimeSpan.FromSeconds(seconds);
}
