using Cairn.Diagnostics;
using Cairn.Journal;
using Cairn.Pal;
using Cairn.Paging;
using static Cairn.Tests.Flushing.FlushHarness;

namespace Cairn.Tests.Flushing;

/// <summary>
/// The flush and sync policy on its own: when a flush is due, what it writes, when a sync follows and what
/// it releases, how a full disk and other errors are handled, and what Checkpoint, Close and the cycle's
/// next deadline do. The test runs each cycle itself (no background thread) against a fake target and a
/// fake clock, so every decision is made at a moment the test chose.
/// </summary>
public sealed unsafe class FlushSchedulerTests
{
    private static readonly TimeSpan Tick = TimeSpan.FromTicks(1);

    [Fact]
    public void Nothing_is_flushed_before_the_flush_delay_after_a_commit()
    {
        using var h = new FlushHarness();
        Assert.Equal(Timeout.InfiniteTimeSpan, h.Scheduler.RunCycle());
        h.Commit(10);
        h.Clock.Advance(FlushDelay - Tick);
        h.Scheduler.RunCycle();
        Assert.Empty(h.Target.Calls);

        h.Clock.Advance(Tick);
        h.Scheduler.RunCycle();
        Assert.Equal(["write 1 after 0: 10@1"], h.Target.Calls);
        Assert.Equal(1, h.Scheduler.FlushedUpTo);
        // The flushed version left the page table: readers find it in the data file now.
        Assert.Equal("", h.PagesInScratch());
    }

    [Fact]
    public void Scratch_memory_past_the_flush_threshold_makes_a_flush_due_at_once()
    {
        using var h = new FlushHarness(flushThresholdBytes: 2 * StorageConstants.PageSize);
        h.Commit(10);
        h.Scheduler.RunCycle();
        Assert.Empty(h.Target.Calls);

        h.Commit(11);
        h.Scheduler.RunCycle();
        Assert.Equal(["write 2 after 0: 10@1 11@2"], h.Target.Calls);
    }

    [Fact]
    public void A_writer_waiting_for_scratch_memory_makes_a_flush_and_a_sync_due_at_once()
    {
        using var h = new FlushHarness(scratchLimit: 2 * StorageConstants.PageSize);
        h.Commit(10);
        // With the committed page, this puts scratch memory at its limit: the next writer must wait.
        nint held = (nint)h.Scratch.Allocate(1);
        h.Scheduler.RunCycle();
        Assert.Empty(h.Target.Calls);

        int wakeUps = 0, reclaims = 0;
        h.Budget.WakeFlusher = () => wakeUps++;
        // The waiter asks for a flush after its first look; on its second look the memory is back.
        h.Budget.WaitForRoom(() =>
        {
            if (++reclaims == 2)
                h.Scratch.Free((byte*)held, 1);
        }, h.States);
        Assert.Equal(1, wakeUps);

        h.Scheduler.RunCycle();
        Assert.Equal(["write 1 after 0: 10@1", "sync", "header 1", "release journals up to 0"], h.Target.Calls);
    }

    [Fact]
    public void Journals_piling_up_make_a_flush_and_a_sync_due_and_bring_the_older_header_copy_up_to_date()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        h.Target.RetainedJournalBytes = 2 * MaxJournalFileBytes - 1;
        h.Scheduler.RunCycle();
        Assert.Empty(h.Target.Calls);

        h.Target.RetainedJournalBytes = 2 * MaxJournalFileBytes;
        h.Scheduler.RunCycle();
        Assert.Equal(["write 1 after 0: 10@1", "sync", "header 1", "release journals up to 0"], h.Target.Calls);

        // Still piling up, and only the older header copy (at 0) still needs them: it is caught up, and they go.
        h.Target.Calls.Clear();
        h.Scheduler.RunCycle();
        Assert.Equal(["catch up older header", "release journals up to 1"], h.Target.Calls);
    }

    [Fact]
    public void A_flush_writes_the_oldest_readers_state_and_only_what_is_newer_than_the_last_flush()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        h.Clock.Advance(FlushDelay);
        h.Scheduler.RunCycle();
        var seen = h.Commit(11);
        int reader = h.BeginReader();
        h.Commit(11, 12); // transaction 3: a newer 11 and a new 12, which the reader does not see

        h.Target.Calls.Clear();
        h.Clock.Advance(FlushDelay);
        h.Scheduler.RunCycle();
        Assert.Equal(["write 2 after 1: 11@2"], h.Target.Calls);
        Assert.Same(seen, h.Target.WrittenStates[^1]);
        // What the reader cannot see yet stays in scratch memory.
        Assert.Equal("11@3 12@3", h.PagesInScratch());

        h.EndReader(reader);
        h.Target.Calls.Clear();
        h.Clock.Advance(FlushDelay);
        h.Scheduler.RunCycle();
        Assert.Equal(["write 3 after 2: 11@3 12@3"], h.Target.Calls);
        Assert.Equal("", h.PagesInScratch());
    }

    [Fact]
    public void A_sync_comes_after_the_sync_interval_records_the_flushed_state_and_releases_journals_up_to_the_older_header_copy()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        h.Clock.Advance(FlushDelay);
        h.Scheduler.RunCycle();
        h.Clock.Advance(SyncInterval - FlushDelay - Tick);
        h.Scheduler.RunCycle();
        Assert.Equal(["write 1 after 0: 10@1"], h.Target.Calls);
        Assert.Equal(0, h.Scheduler.SyncedUpTo);

        h.Clock.Advance(Tick);
        h.Scheduler.RunCycle();
        Assert.Equal(["write 1 after 0: 10@1", "sync", "header 1", "release journals up to 0"], h.Target.Calls);
        Assert.Equal(1, h.Scheduler.SyncedUpTo);
        var written = h.Target.WrittenStates[0];
        Assert.Equal(new SyncPoint(written.TransactionId, written.Root, written.JournalPosition), h.Target.HeaderState);

        // The next sync moves the older copy to 1, so the journals up to 1 go.
        h.Target.Calls.Clear();
        h.Commit(11);
        h.Clock.Advance(FlushDelay);
        h.Scheduler.RunCycle();
        h.Clock.Advance(SyncInterval - FlushDelay);
        h.Scheduler.RunCycle();
        Assert.Equal(["write 2 after 1: 11@2", "sync", "header 2", "release journals up to 1"], h.Target.Calls);
        Assert.Equal(2, h.Scheduler.SyncedUpTo);
    }

    [Fact]
    public void A_full_disk_postpones_the_flush_until_the_retry_delay_has_passed()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        h.Target.DiskPages = 0;
        h.Clock.Advance(FlushDelay);
        h.Scheduler.RunCycle();
        Assert.False(h.Failure.HasFailed);
        Assert.Contains("fake disk holds 0 pages", Assert.Single(h.Logs.WithEventId(1400)).Message); // FlushPostponed
        Assert.Contains(h.IoStats.Snapshot(), op => op is { Kind: IoOperationKind.DataFlush, Failed: true });
        Assert.Equal(0, h.Scheduler.FlushedUpTo);
        // The whole flush found no room, nor did the journal-by-journal one (no journal kept: one step, the whole state).
        string[] postponed = ["write 1 after 0: disk full", "delete spare journals", "write 1 after 0: disk full"];
        Assert.Equal(postponed, h.Target.Calls);

        // However often the cycle runs, no retry before the delay.
        h.Target.DiskPages = long.MaxValue;
        h.Scheduler.RunCycle();
        h.Clock.Advance(h.Settings.DiskFullRetryDelay - Tick);
        h.Scheduler.RunCycle();
        Assert.Equal(postponed, h.Target.Calls);

        h.Clock.Advance(Tick);
        h.Scheduler.RunCycle();
        Assert.Equal([.. postponed, "write 1 after 0: 10@1"], h.Target.Calls);
        Assert.Equal(1, h.Scheduler.FlushedUpTo);
        Assert.False(h.Failure.HasFailed);
    }

    [Fact]
    public void After_a_full_disk_the_cycle_sleeps_until_the_retry()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        h.Target.DiskPages = 0;
        h.Clock.Advance(FlushDelay);
        Assert.Equal(h.Settings.DiskFullRetryDelay, h.Scheduler.RunCycle());
    }

    [Fact]
    public void A_reader_holding_back_every_unflushed_version_does_not_make_the_cycle_spin()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        h.Clock.Advance(FlushDelay);
        h.Scheduler.RunCycle();
        h.BeginReader(); // sees transaction 1, which is flushed
        h.Commit(11);
        h.Clock.Advance(FlushDelay);
        var sleep = h.Scheduler.RunCycle();
        Assert.Equal(["write 1 after 0: 10@1"], h.Target.Calls); // nothing the reader allows is unflushed
        Assert.True(sleep > TimeSpan.FromMilliseconds(1), $"the cycle asks to run again after {sleep.TotalMilliseconds} ms with nothing it can flush");
    }

    [Fact]
    public void A_flush_error_other_than_a_full_disk_fails_the_environment_and_ends_the_cycles()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        var error = DeviceError();
        h.Target.FailNextWrite(error);
        h.Clock.Advance(FlushDelay);
        Assert.Equal(Timeout.InfiniteTimeSpan, h.Scheduler.RunCycle());

        var failed = Assert.Throws<EnvironmentFailedException>(h.Failure.ThrowIfFailed);
        Assert.Equal("flushing the data file", failed.Operation);
        Assert.Same(error, failed.InnerException);
        Assert.Empty(h.Logs.WithEventId(1400));
        // A failed environment's cycle touches nothing, however much is due.
        h.Target.RetainedJournalBytes = 2 * MaxJournalFileBytes;
        h.Clock.Advance(SyncInterval);
        Assert.Equal(Timeout.InfiniteTimeSpan, h.Scheduler.RunCycle());
        Assert.Equal(["write 1 after 0 failed"], h.Target.Calls);
    }

    [Fact]
    public void A_sync_error_fails_the_environment_before_the_header_names_the_state()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        h.Clock.Advance(FlushDelay);
        h.Scheduler.RunCycle();
        var error = DeviceError();
        h.Target.FailNextSync(error);
        h.Clock.Advance(SyncInterval);
        Assert.Equal(Timeout.InfiniteTimeSpan, h.Scheduler.RunCycle());

        var failed = Assert.Throws<EnvironmentFailedException>(h.Failure.ThrowIfFailed);
        Assert.Equal("syncing the data file", failed.Operation);
        Assert.Same(error, failed.InnerException);
        Assert.Equal(["write 1 after 0: 10@1", "sync failed"], h.Target.Calls);
        Assert.Equal(0, h.Scheduler.SyncedUpTo);
    }

    [Fact]
    public void Checkpoint_flushes_syncs_and_brings_the_older_header_copy_up_to_date()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        h.Scheduler.Checkpoint();
        Assert.Equal(["write 1 after 0: 10@1", "sync", "header 1 in both copies", "release journals up to 1"], h.Target.Calls);

        // The background cycle leaves the older copy one sync behind ...
        h.Target.Calls.Clear();
        h.Commit(11);
        h.Scheduler.ForTestingPurposesOnly().FlushAndSyncAsTheFlusherDoes();
        Assert.Equal(["write 2 after 1: 11@2", "sync", "header 2", "release journals up to 1"], h.Target.Calls);

        // ... which a checkpoint with nothing new to flush catches up, releasing what only that copy needed.
        h.Target.Calls.Clear();
        h.Scheduler.Checkpoint();
        Assert.Equal(["catch up older header", "release journals up to 2"], h.Target.Calls);
    }

    [Fact]
    public void Checkpoint_on_a_full_disk_throws_without_failing_the_environment()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        h.Target.DiskPages = 0;
        Assert.Contains("fake disk holds 0 pages", Assert.Throws<DiskFullException>(h.Scheduler.Checkpoint).Message);
        Assert.False(h.Failure.HasFailed);

        h.Target.DiskPages = long.MaxValue;
        h.Scheduler.Checkpoint();
        Assert.Equal(1, h.Scheduler.SyncedUpTo);
    }

    [Fact]
    public void Close_flushes_syncs_releases_every_journal_and_says_so()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        string how = "";
        h.Scheduler.Close(ref how);
        Assert.Equal(["write 1 after 0: 10@1", "sync", "header 1 in both copies", "release journals up to 1", "release all journals"], h.Target.Calls);
        Assert.Equal(", clean (journals: 2 deleted, 1 kept for reuse)", how);
    }

    [Fact]
    public void Close_whose_flush_fails_keeps_the_journals_says_why_and_throws()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        var error = DeviceError();
        h.Target.FailNextWrite(error);
        string how = "";
        Assert.Same(error, Assert.Throws<DeviceIOException>(() => h.Scheduler.Close(ref how)));
        Assert.Equal($", not flushed ({error.Message}): the journals are kept and the next open replays them", how);
        Assert.Equal(["write 1 after 0 failed"], h.Target.Calls);
    }

    [Fact]
    public void Close_of_a_failed_environment_touches_nothing()
    {
        using var h = new FlushHarness();
        h.Commit(10);
        h.Failure.Fail("writing the journal", DeviceError());
        string how = "";
        h.Scheduler.Close(ref how);
        Assert.Equal(", failed: the next open recovers from the journals", how);
        Assert.Empty(h.Target.Calls);
    }

    [Fact]
    public void The_next_deadline_is_the_nearer_of_the_flush_delay_and_the_sync_interval()
    {
        using var h = new FlushHarness(); // flush delay 1 s, sync interval 10 s, counted from t = 0
        h.Commit(10);
        // t = 0.25: only the commit's flush delay is pending.
        Assert.Equal(Seconds(0.75), Cycle(h, Seconds(0.25)));
        // t = 1: transaction 1 is flushed; only the sync is pending.
        Assert.Equal(Seconds(9), Cycle(h, Seconds(0.75)));
        // t = 9.5: transaction 2 is committed; its flush delay (1 s) is further off than the sync (0.5 s).
        h.Clock.Advance(Seconds(8.5));
        h.Commit(11);
        Assert.Equal(Seconds(0.5), h.Scheduler.RunCycle());
        // t = 10: the sync runs; the flush of 2 is now the only deadline, 0.5 s off.
        Assert.Equal(Seconds(0.5), Cycle(h, Seconds(0.5)));
        Assert.Equal(1, h.Scheduler.SyncedUpTo);
        // t = 10.5: 2 is flushed; the next sync is due 10 s after the last one.
        Assert.Equal(Seconds(9.5), Cycle(h, Seconds(0.5)));
        Assert.Equal(2, h.Scheduler.FlushedUpTo);
        // t = 20: synced; the flushed pages' scratch memory is spare, so the flusher looks again after a sync interval.
        Assert.Equal(Seconds(10), Cycle(h, Seconds(9.5)));
        Assert.Equal(2, h.Scheduler.SyncedUpTo);
        Assert.True(h.Scratch.HoldsSpareMemory);
        // t = 30: still idle, nothing allocated since: the spare memory went back to the OS and nothing is left to do.
        Assert.Equal(Timeout.InfiniteTimeSpan, Cycle(h, Seconds(10)));
        Assert.False(h.Scratch.HoldsSpareMemory);
        Assert.Equal(0, h.Scratch.BytesInUse);
    }

    [Fact]
    public void Arenas_a_preparation_maps_after_the_idle_release_go_back_one_idle_cycle_later()
    {
        var preparations = new Queue<Action>();
        using var h = new FlushHarness(prepareAhead: preparations.Enqueue);
        h.Commit(10); // the commit's pages map the first arena, which queues a preparation (not run yet)
        Assert.Single(preparations);
        Cycle(h, Seconds(1)); // t = 1: flushed
        Cycle(h, Seconds(9)); // t = 10: synced; idle, the allocator takes note
        // t = 20: idle for a whole cycle: what is mapped goes back, but a preparation is still pending, so the flusher
        // looks again rather than sleeping until the next commit.
        Assert.Equal(Seconds(10), Cycle(h, Seconds(10)));
        Assert.Equal(0, h.Scratch.MappedBytes);
        Assert.True(h.Scratch.HoldsSpareMemory);

        preparations.Dequeue()(); // the preparation maps its arenas after that release
        Assert.Equal(ScratchAllocator.PreparedArenaTarget * ScratchAllocator.ArenaBytes, h.Scratch.MappedBytes);
        // t = 30: still idle: the prepared arenas go back too, and nothing is left to look at.
        Assert.Equal(Timeout.InfiniteTimeSpan, Cycle(h, Seconds(10)));
        Assert.Equal(0, h.Scratch.MappedBytes);
        Assert.False(h.Scratch.HoldsSpareMemory);
    }

    private static TimeSpan Cycle(FlushHarness h, TimeSpan after)
    {
        h.Clock.Advance(after);
        return h.Scheduler.RunCycle();
    }

    private static TimeSpan Seconds(double seconds) => TimeSpan.FromSeconds(seconds);

    private static DeviceIOException DeviceError() => new("input/output error", PalStatus.IOError, 5, "pwritev", "fake.data", 0);
}
