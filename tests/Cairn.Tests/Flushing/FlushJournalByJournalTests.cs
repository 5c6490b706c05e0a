using Cairn.Journal;
using Cairn.Pal;
using Cairn.Paging;

namespace Cairn.Tests.Flushing;

/// <summary>
/// The checkpoint that goes journal by journal on a disk too full for one flush (issue 30, item 3), against the fake
/// target's disk model: which pages each step writes, and that a journal goes only after the data file was synced and
/// both header copies were written at or past its last transaction.
/// </summary>
public sealed class FlushJournalByJournalTests
{
    // Two journals kept: the first ends at transaction 2 (25 pages allocated then), the second at 4 (45 pages).
    private static readonly SyncPoint FirstEnd = new(2, new RootRecord(25, 2, default), new JournalPosition(1, 8192));
    private static readonly SyncPoint SecondEnd = new(4, new RootRecord(45, 2, default), new JournalPosition(2, 8192));

    /// <summary>Six commits over the two kept journals and the one in service; page 10 is rewritten after the first journal's end.</summary>
    private static FlushHarness Commits()
    {
        var h = new FlushHarness();
        h.Commit(10);
        h.Commit(20);
        h.Commit(30);
        h.Commit(40, 10);
        h.Commit(50);
        h.Commit(60);
        h.Target.KeptJournalEnds.AddRange([FirstEnd, SecondEnd]);
        return h;
    }

    [Fact]
    public void A_checkpoint_too_big_for_the_disk_goes_journal_by_journal_releasing_each_only_after_the_header_passed_it()
    {
        using var h = Commits();
        // Room for 30 pages: the whole flush (64) does not fit; each released journal gives back 20.
        h.Target.DiskPages = 30;
        h.Target.PagesFreedPerRelease = 20;

        h.Scheduler.Checkpoint();

        Assert.Equal(
        [
            "write 6 after 0: disk full",
            "delete spare journals",
            // Below the first journal's high-water mark, every page newer than the last flush, page 10 with its newest
            // version (transaction 4): the data file's copy predates transaction 1, and replaying 3.. over it would miss
            // what 1 wrote; over any version from 2's on it is right (docs/on-disk-format.md, "Diff operations").
            "write 6 after 0 pages 0..25 for 2: 10@4 20@2",
            "sync", "header 2 in both copies", "release journals up to 2, deleting them",
            "write 6 after 0 pages 25..45 for 4: 30@3 40@4",
            "sync", "header 4 in both copies", "release journals up to 4, deleting them",
            "write 6 after 0 pages 45..end for 6: 50@5 60@6",
            "sync", "header 6 in both copies", "release journals up to 6",
        ], h.Target.Calls);
        Assert.Equal(6, h.Scheduler.SyncedUpTo);
        Assert.Equal(64, h.Target.FilePages);
        Assert.Equal("", h.PagesInScratch());
        Assert.False(h.Failure.HasFailed);
    }

    [Fact]
    public void A_step_that_still_finds_no_room_throws_with_the_earlier_steps_synced_and_the_later_journals_kept()
    {
        using var h = Commits();
        h.Target.DiskPages = 30;
        h.Target.PagesFreedPerRelease = 5; // 35 pages after the first journal: too few for the second step's 45

        var full = Assert.Throws<DiskFullException>(h.Scheduler.Checkpoint);
        Assert.Contains("the flush needs 45", full.Message);
        Assert.False(h.Failure.HasFailed);
        Assert.Equal(2, h.Scheduler.SyncedUpTo);
        Assert.Equal(FirstEnd, h.Target.HeaderState);
        Assert.Equal([SecondEnd], h.Target.KeptJournalEnds);
        // What the first step wrote left scratch memory; the rest waits there, the journals keeping it durable.
        Assert.Equal("30@3 40@4 50@5 60@6", h.PagesInScratch());

        // With room again, the next checkpoint goes on from the first journal's end.
        h.Target.DiskPages = long.MaxValue;
        h.Target.Calls.Clear();
        h.Scheduler.Checkpoint();
        Assert.Equal(["write 6 after 2: 30@3 40@4 50@5 60@6", "sync", "header 6 in both copies", "release journals up to 6"], h.Target.Calls);
    }

    [Fact]
    public void A_failed_sync_between_steps_fails_the_environment_and_releases_nothing_it_did_not_cover()
    {
        using var h = Commits();
        h.Target.DiskPages = 30;
        h.Target.PagesFreedPerRelease = 20;
        h.Target.FailNextSync(new DeviceIOException("input/output error", PalStatus.IOError, 5, "fdatasync", "fake.data", 0));

        Assert.Throws<EnvironmentFailedException>(h.Scheduler.Checkpoint);
        Assert.True(h.Failure.HasFailed);
        Assert.Equal(["write 6 after 0: disk full", "delete spare journals", "write 6 after 0 pages 0..25 for 2: 10@4 20@2", "sync failed"],
            h.Target.Calls);
        Assert.Equal(0, h.Scheduler.SyncedUpTo);
        Assert.Equal([FirstEnd, SecondEnd], h.Target.KeptJournalEnds);
    }
}
