using Cairn.Transactions;
using Cairn.Journal;

namespace Cairn.Tests.Flushing;

/// <summary>
/// The recovery objective on its own (FlushSettings.MaxRecoveryJournalBytes): the journal a crash would leave to replay
/// is counted from the last sync's position to the last commit's, within a journal and across full ones of given sizes,
/// and a flush and a sync are due exactly when it passes the objective. The test runs each cycle at a fixed moment
/// (no flush delay or sync interval passes), so only the objective can make anything due.
/// </summary>
public sealed class RecoveryObjectiveTests
{
    private const long Objective = 100 * 4096;

    [Fact]
    public void While_a_backup_holds_the_syncs_the_objective_makes_no_flush_and_the_holds_end_flushes_and_syncs_at_once()
    {
        using var h = new FlushHarness(maxRecoveryJournalBytes: Objective);
        var hold = h.Scheduler.HoldSync(static () => { });
        // Past the objective, commit after commit: no sync can follow while the hold lasts, so a flush per commit
        // would only write the same pages again and again on the writers' time.
        for (int i = 1; i <= 3; i++)
        {
            h.CommitAt(new JournalPosition(1, Objective + i * 4096), 10 + i);
            h.Scheduler.RunCycle();
        }
        Assert.Empty(h.Target.Calls);

        hold.Dispose();
        h.Scheduler.RunCycle();
        Assert.Equal(["release journals up to 0", "write 3 after 0: 11@1 12@2 13@3", "sync", "header 3", "release journals up to 0"], h.Target.Calls);
    }

    [Fact]
    public void With_lazy_commits_the_written_entries_count_though_the_newest_state_waits_for_its_write()
    {
        using var h = new FlushHarness(maxRecoveryJournalBytes: Objective);
        var first = new EntryLocation(JournalPosition.None, startsBatch: true);
        h.CommitLazily(first, 10);
        first.Position = new JournalPosition(1, Objective + 4096);
        h.States.MarkDurable(1);
        // Published before its entry is written, as every lazy commit is: its position is not known yet.
        h.CommitLazily(new EntryLocation(JournalPosition.None, startsBatch: true), 11);
        Assert.Equal(JournalPosition.None, h.States.Current.JournalPosition);

        h.Scheduler.RunCycle();
        Assert.Equal(["write 1 after 0: 10@1", "sync", "header 1", "release journals up to 0"], h.Target.Calls);
    }

    [Fact]
    public void Within_one_journal_a_flush_and_a_sync_are_due_once_the_journal_since_the_sync_passes_the_objective_and_not_before()
    {
        using var h = new FlushHarness(maxRecoveryJournalBytes: Objective);
        h.CommitAt(new JournalPosition(1, 40 * 4096), 10);
        h.CommitAt(new JournalPosition(1, Objective), 11);
        Assert.Equal(Objective, h.Scheduler.JournalBytesToReplay(h.States.Current.JournalPosition));
        h.Scheduler.RunCycle();
        Assert.Empty(h.Target.Calls);

        h.CommitAt(new JournalPosition(1, Objective + 4096), 12);
        h.Scheduler.RunCycle();
        Assert.Equal(["write 3 after 0: 10@1 11@2 12@3", "sync", "header 3", "release journals up to 0"], h.Target.Calls);

        // Counted from the new sync point now: a commit after it is far below the objective.
        h.Target.Calls.Clear();
        h.CommitAt(new JournalPosition(1, Objective + 8 * 4096), 13);
        Assert.Equal(7 * 4096, h.Scheduler.JournalBytesToReplay(h.States.Current.JournalPosition));
        h.Scheduler.RunCycle();
        Assert.Empty(h.Target.Calls);
    }

    [Fact]
    public void Across_journals_the_rest_of_the_synced_one_the_full_ones_between_and_the_current_offset_count()
    {
        using var h = new FlushHarness(maxRecoveryJournalBytes: Objective);
        h.CommitAt(new JournalPosition(1, Objective + 4096), 10);
        h.Scheduler.RunCycle(); // synced at journal 1, offset Objective + 4 KiB
        h.Target.Calls.Clear();
        h.Target.JournalSizes[1] = Objective + 21 * 4096; // 20 blocks of it after the sync point
        h.Target.JournalSizes[2] = 50 * 4096;

        h.CommitAt(new JournalPosition(2, 10 * 4096), 11);
        Assert.Equal(30 * 4096, h.Scheduler.JournalBytesToReplay(h.States.Current.JournalPosition));
        h.CommitAt(new JournalPosition(3, 30 * 4096), 12);
        Assert.Equal(20 * 4096 + 50 * 4096 + 30 * 4096, h.Scheduler.JournalBytesToReplay(h.States.Current.JournalPosition));
        h.Scheduler.RunCycle();
        Assert.Empty(h.Target.Calls);

        h.CommitAt(new JournalPosition(3, 31 * 4096), 13);
        h.Scheduler.RunCycle();
        Assert.Equal(["write 4 after 1: 11@2 12@3 13@4", "sync", "header 4", "release journals up to 1"], h.Target.Calls);
        Assert.Equal(0, h.Scheduler.JournalBytesToReplay(h.States.Current.JournalPosition));
    }

    [Fact]
    public void The_full_journals_are_counted_once_per_pair_of_journals_not_once_per_commit()
    {
        using var h = new FlushHarness(maxRecoveryJournalBytes: Objective);
        h.Target.JournalSizes[1] = 8 * 4096;
        for (int i = 1; i <= 5; i++)
            h.CommitAt(new JournalPosition(2, i * 4096), 10 + i);
        Assert.Equal(1, h.Target.JournalFileBytesCalls);
        Assert.Equal(8 * 4096 + 5 * 4096, h.Scheduler.JournalBytesToReplay(h.States.Current.JournalPosition));
    }

    [Fact]
    public void Flushed_but_unsynced_data_is_synced_at_once_when_the_journal_passes_the_objective()
    {
        using var h = new FlushHarness(maxRecoveryJournalBytes: Objective);
        h.CommitAt(new JournalPosition(1, 4096), 10);
        h.Clock.Advance(FlushHarness.FlushDelay);
        h.Scheduler.RunCycle();
        // Flushed by age; the sync waits for the sync interval.
        Assert.Equal(["write 1 after 0: 10@1"], h.Target.Calls);

        h.Target.Calls.Clear();
        h.CommitAt(new JournalPosition(1, Objective + 4096), 11);
        h.Scheduler.RunCycle();
        Assert.Equal(["write 2 after 1: 11@2", "sync", "header 2", "release journals up to 0"], h.Target.Calls);
    }

    [Fact]
    public void Without_an_objective_no_journal_length_makes_a_flush_due()
    {
        using var h = new FlushHarness();
        h.Target.JournalSizes[1] = 1L << 40;
        h.CommitAt(new JournalPosition(2, 1L << 30), 10);
        h.Scheduler.RunCycle();
        Assert.Empty(h.Target.Calls);
    }
}
