using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Recovery;

/// <summary>
/// <see cref="Cairn.Recovery.JournalRecovery"/> over journal files a test wrote and damaged, with a real
/// data file and no environment: the rules of docs/on-disk-format.md, "Journal files". The log starts at
/// the header's position and ends at an empty block, a stale entry or an invalid one; an invalid entry
/// with nothing of this environment after it is a torn tail, cut off; one with a valid later entry is
/// damage (<see cref="JournalCorruptionException"/> naming the journal and offset); a journal of another
/// environment is refused. Journals shared with other environments: <see cref="SharedJournalRecoveryTests"/>.
/// </summary>
public sealed class JournalRecoveryTests
{
    internal const int TornTailEvent = 1103;
    internal const long PayloadByte = 1000; // inside the first page record of a one-page entry

    [Fact]
    public void Every_entry_after_the_header_is_replayed_in_order_and_the_newest_page_version_wins()
    {
        using var scene = new RecoveryScene("recovery-replay");
        var entries = new[]
        {
            scene.Entries.Build(1, (100, 1), (101, 2)),
            scene.Entries.Build(2, (100, 3)),
        };
        scene.WriteJournal(1, entries, size: 64 * 1024);

        var result = scene.Recover();

        Assert.Equal(2, result.LastTransactionId);
        Assert.Equal(1, result.FirstReplayedTransactionId);
        Assert.Equal(2, result.TransactionsReplayed);
        Assert.Equal(2, result.LastEntry?.TransactionId);
        Assert.Equal(new JournalPosition(1, entries[0].Length + entries[1].Length), result.Position);
        Assert.Equal([100L, 101], result.Pages.Select(p => p.PageNumber));
        Assert.All(result.Pages, p => Assert.Equal(2, p.Version.TransactionId));
        Assert.Equal(JournalEntryFactory.PageImage(100, 3), PageBytes(result, 100));
        Assert.Equal(JournalEntryFactory.PageImage(101, 2), PageBytes(result, 101));
        AssertFiles(result.Journals, nextSequence: 2, [new RetainedJournal(1, scene.JournalPath(1), 64 * 1024, 2)], [], nextRecyclableNumber: 1);
    }

    [Fact]
    public void A_torn_tail_ends_the_log_at_the_last_whole_entry_and_is_cut_off()
    {
        using var scene = new RecoveryScene("recovery-torn");
        var log = new CapturingLoggerFactory();
        long[] offsets = scene.WriteJournal(1, scene.OnePageEntries(1, 2, 3));
        FileDamage.FlipBits(scene.JournalPath(1), offsets[2] + PayloadByte);
        scene.WriteJournal(2, [], size: 16 * 1024); // a journal after the tail, with nothing in it

        var result = scene.Recover(logger: log.CreateLogger("recovery"));

        Assert.Equal(2, result.LastTransactionId);
        Assert.Equal(new JournalPosition(1, offsets[2]), result.Position);
        Assert.Equal(offsets[2], new FileInfo(scene.JournalPath(1)).Length);
        Assert.False(File.Exists(scene.JournalPath(2)));
        Assert.Equal([new RetainedJournal(1, scene.JournalPath(1), offsets[2], 2)], result.Journals.Retained);
        var torn = Assert.Single(log.WithEventId(TornTailEvent));
        Assert.Contains(scene.JournalPath(1), torn.Message);
        Assert.Contains($"offset {offsets[2]}", torn.Message);
    }

    [Fact]
    public void Damage_followed_by_a_valid_entry_is_corruption_naming_the_journal_and_offset()
    {
        using var scene = new RecoveryScene("recovery-damage");
        long[] offsets = scene.WriteJournal(1, scene.OnePageEntries(1, 2, 3));
        long length = new FileInfo(scene.JournalPath(1)).Length;
        FileDamage.FlipBits(scene.JournalPath(1), offsets[1] + PayloadByte);

        var error = Assert.Throws<JournalCorruptionException>(() => scene.Recover());

        Assert.Equal(scene.JournalPath(1), error.FilePath);
        Assert.Equal(offsets[1], error.EntryOffset);
        Assert.Equal(2, error.TransactionId); // the header of the damaged entry is intact
        Assert.Contains("valid entry of transaction 3 follows", error.Message);
        Assert.Equal(length, new FileInfo(scene.JournalPath(1)).Length); // nothing was cut
    }

    [Fact]
    public void Damage_at_the_end_of_a_journal_is_corruption_when_the_log_goes_on_in_a_later_one()
    {
        using var scene = new RecoveryScene("recovery-damage-across");
        long[] offsets = scene.WriteJournal(1, scene.OnePageEntries(1, 2));
        scene.WriteJournal(2, scene.OnePageEntries(3));
        FileDamage.FlipBits(scene.JournalPath(1), offsets[1]); // the header's magic: nothing of it can be trusted

        var error = Assert.Throws<JournalCorruptionException>(() => scene.Recover());

        Assert.Equal(scene.JournalPath(1), error.FilePath);
        Assert.Equal(offsets[1], error.EntryOffset);
        Assert.Equal(-1, error.TransactionId);
        Assert.Contains($"follows in '{scene.JournalPath(2)}' at offset 0", error.Message);
    }

    [Fact]
    public void A_journal_holding_only_another_environment_s_entries_is_refused_naming_it()
    {
        using var scene = new RecoveryScene("recovery-foreign");
        using var stranger = new JournalEntryFactory(Guid.NewGuid());
        scene.WriteJournal(1, scene.OnePageEntries(1));
        scene.WriteJournal(2, [stranger.Build(2, (101, 2)), stranger.Build(3, (102, 3))]);

        var error = Assert.Throws<JournalCorruptionException>(() => scene.Recover());

        Assert.Equal(scene.JournalPath(2), error.FilePath);
        Assert.Equal(0, error.EntryOffset);
        Assert.Equal(2, error.TransactionId);
        Assert.Contains($"written by environment {stranger.EnvironmentId}", error.Message);
    }

    [Fact]
    public void Another_environment_s_entries_after_a_torn_tail_do_not_make_it_damage_and_go_with_it()
    {
        using var scene = new RecoveryScene("recovery-foreign-after-tail");
        using var stranger = new JournalEntryFactory(Guid.NewGuid());
        long[] offsets = scene.WriteJournal(1, scene.OnePageEntries(1, 2));
        FileDamage.FlipBits(scene.JournalPath(1), offsets[1] + PayloadByte);
        scene.WriteJournal(2, [stranger.Build(2, (101, 2)), stranger.Build(3, (102, 3))]);

        var result = scene.Recover();

        Assert.Equal(1, result.LastTransactionId);
        Assert.Equal(new JournalPosition(1, offsets[1]), result.Position);
        Assert.False(File.Exists(scene.JournalPath(2)));
    }

    [Fact]
    public void An_empty_journal_folder_recovers_nothing_and_numbers_the_next_journal_above_the_header_s()
    {
        using var scene = new RecoveryScene("recovery-empty");
        var header = scene.SyncedHeader(lastTransactionId: 12, journalSequence: 7, journalOffset: 8192);

        var result = scene.Recover(header);

        Assert.Equal(12, result.LastTransactionId);
        Assert.Equal(0, result.TransactionsReplayed);
        Assert.Null(result.LastEntry);
        Assert.Equal(new JournalPosition(7, 8192), result.Position);
        Assert.Empty(result.Pages);
        AssertFiles(result.Journals, nextSequence: 8, [], [], nextRecyclableNumber: 1);
    }

    [Fact]
    public void The_header_s_journal_position_skips_what_the_data_file_has()
    {
        using var scene = new RecoveryScene("recovery-position");
        scene.WriteJournal(1, scene.OnePageEntries(1, 2));
        long[] offsets = scene.WriteJournal(2, scene.OnePageEntries(3, 4, 5));

        var result = scene.Recover(scene.SyncedHeader(lastTransactionId: 3, journalSequence: 2, journalOffset: offsets[1]));

        Assert.Equal(4, result.FirstReplayedTransactionId);
        Assert.Equal(2, result.TransactionsReplayed);
        Assert.Equal([104L, 105], result.Pages.Select(p => p.PageNumber));
        Assert.False(File.Exists(scene.JournalPath(1))); // before the header's journal: obsolete, deleted
        Assert.Equal([2L], result.Journals.Retained.Select(j => j.Sequence));
    }

    [Fact]
    public void Entries_the_header_covers_at_its_position_are_skipped_not_replayed()
    {
        using var scene = new RecoveryScene("recovery-synced-entries");
        scene.WriteJournal(2, scene.OnePageEntries(3, 4, 5));

        var result = scene.Recover(scene.SyncedHeader(lastTransactionId: 4, journalSequence: 2, journalOffset: 0));

        Assert.Equal(5, result.FirstReplayedTransactionId);
        Assert.Equal(1, result.TransactionsReplayed);
        Assert.Equal([105L], result.Pages.Select(p => p.PageNumber));
        Assert.Equal(5, Assert.Single(result.Journals.Retained).LastTransactionId);
    }

    [Fact]
    public void Spare_files_are_handed_over_for_reuse_and_never_read()
    {
        using var scene = new RecoveryScene("recovery-spares");
        string spare = Path.Combine(scene.JournalDirectory, JournalFileName.Recyclable(5));
        File.WriteAllBytes(spare, scene.Entries.Build(1, (100, 1))); // an entry of the next transaction, even

        var result = scene.Recover();

        Assert.Equal(0, result.TransactionsReplayed);
        AssertFiles(result.Journals, nextSequence: 1, [], [new RecyclableJournal(spare, JournalEntryFactory.OnePageEntrySize)], nextRecyclableNumber: 6);
        Assert.True(File.Exists(spare));
    }

    [Fact]
    public void A_recycled_journal_s_old_entries_end_the_log_instead_of_being_replayed()
    {
        using var scene = new RecoveryScene("recovery-recycled");
        // The journal writes transactions 1 to 4 into journal 1, 5 to 8 into journal 2, and 9 into journal 3,
        // which is journal 1 recycled after a sync of 4: transactions 2 to 4 are still in it, after 9.
        using (var wal = new JournalHarness(scene.JournalDirectory, scene.Header.EnvironmentId))
        {
            wal.FillTwoJournalsRecyclingTheFirst();
            wal.Append(9);
            Assert.Equal([9L, 2, 3, 4], JournalHarness.TransactionsByBlock(wal.JournalPath(3)));
        } // a crash: nothing released, nothing synced after 4
        var log = new CapturingLoggerFactory();

        var result = scene.Recover(scene.SyncedHeader(lastTransactionId: 4, journalSequence: 2, journalOffset: 0), log.CreateLogger("recovery"));

        Assert.Equal(9, result.LastTransactionId);
        Assert.Equal(5, result.TransactionsReplayed);
        Assert.Equal(new JournalPosition(3, JournalEntryFactory.EmptyEntrySize), result.Position);
        Assert.Equal([(2L, 8L), (3L, 9L)], result.Journals.Retained.Select(j => (j.Sequence, j.LastTransactionId)));
        // Transaction 2 after 9 is where the log ends, cleanly: not a torn tail, and nothing is cut.
        Assert.Empty(log.WithEventId(TornTailEvent));
        Assert.Equal([9L, 2, 3, 4], JournalHarness.TransactionsByBlock(scene.JournalPath(3)));
    }

    internal static unsafe byte[] PageBytes(Cairn.Recovery.RecoveryResult result, long pageNumber)
    {
        var version = result.Pages.Single(p => p.PageNumber == pageNumber).Version;
        return new ReadOnlySpan<byte>((byte*)version.Pointer, version.PageCount * Cairn.Paging.StorageConstants.PageSize).ToArray();
    }

    private static void AssertFiles(JournalFileSet files, long nextSequence, RetainedJournal[] retained, RecyclableJournal[] recyclable,
        long nextRecyclableNumber)
    {
        Assert.Equal(nextSequence, files.NextSequence);
        Assert.Equal(retained, files.Retained);
        Assert.Equal(recyclable, files.Recyclable);
        Assert.Equal(nextRecyclableNumber, files.NextRecyclableNumber);
    }
}
