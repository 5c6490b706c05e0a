using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Recovery;

/// <summary>
/// <see cref="Cairn.Recovery.JournalRecovery"/> over journals shared by a root and its branches, whose
/// writes carry entries of several environments: docs/on-disk-format.md, "Shared journals". Entries of
/// other environments are stepped over; a journal with only others' entries is refused unless this
/// environment wrote them.
/// </summary>
public sealed class SharedJournalRecoveryTests
{
    private const int TornTailEvent = JournalRecoveryTests.TornTailEvent;
    private const int SharedTornTailEvent = 1105;
    private const long PayloadByte = JournalRecoveryTests.PayloadByte;
    private const long EntrySize = JournalEntryFactory.OnePageEntrySize;

    [Fact]
    public void Entries_of_other_environments_between_own_ones_are_skipped_and_the_own_ones_replayed_in_order()
    {
        using var scene = new RecoveryScene("shared-interleaved");
        using var branch = new JournalEntryFactory(Guid.NewGuid());
        // The branch's transaction 1 follows the root's 1 (stale, if it were the root's); its 9 is far ahead (missing 3..8).
        long[] offsets = scene.WriteJournal(1,
        [
            scene.Entries.Build(1, (101, 1)),
            JournalEntryFactory.Stamp(branch.Build(1, (201, 1)), scene.Header.EnvironmentId, JournalEntryFactory.OnePageEntrySize),
            scene.Entries.Build(2, (102, 2)),
            JournalEntryFactory.Stamp(branch.Build(9, (209, 9)), scene.Header.EnvironmentId, JournalEntryFactory.OnePageEntrySize),
            scene.Entries.Build(3, (103, 3)),
            branch.Build(10, (210, 10)),
        ], size: 64 * 1024);

        var result = scene.Recover();

        Assert.Equal(3, result.LastTransactionId);
        Assert.Equal(3, result.TransactionsReplayed);
        Assert.Equal([101L, 102, 103], result.Pages.Select(p => p.PageNumber));
        Assert.All(result.Pages, p => Assert.Equal(JournalEntryFactory.PageImage(p.PageNumber, (int)p.PageNumber - 100), JournalRecoveryTests.PageBytes(result, p.PageNumber)));
        Assert.Equal(new JournalPosition(1, offsets[5]), result.Position);
        var retained = Assert.Single(result.Journals.Retained);
        Assert.Equal(3, retained.LastTransactionId);
        Assert.True(retained.Shared); // it holds entries of another environment
    }

    [Fact]
    public void A_journal_whose_other_entries_this_environment_wrote_is_its_own_and_replays_nothing()
    {
        using var scene = new RecoveryScene("shared-root");
        using var branch = new JournalEntryFactory(Guid.NewGuid());
        var root = scene.Header.EnvironmentId;
        scene.WriteJournal(1, [JournalEntryFactory.Stamp(branch.Build(4, (204, 4)), root, 0), JournalEntryFactory.Stamp(branch.Build(5, (205, 5)), root, 0)]);

        var result = scene.Recover();

        Assert.Equal(0, result.TransactionsReplayed);
        Assert.Empty(result.Pages);
        var retained = Assert.Single(result.Journals.Retained);
        Assert.Equal(-1, retained.LastTransactionId);
        Assert.True(retained.Shared);
    }

    [Fact]
    public void A_journal_read_from_the_middle_is_not_refused_for_holding_only_others_entries_there()
    {
        using var scene = new RecoveryScene("shared-mid-file");
        using var stranger = new JournalEntryFactory(Guid.NewGuid());
        long[] offsets = scene.WriteJournal(1, [.. scene.OnePageEntries(1, 2), stranger.Build(3, (203, 3)), stranger.Build(4, (204, 4))]);

        var result = scene.Recover(scene.SyncedHeader(lastTransactionId: 2, journalSequence: 1, journalOffset: offsets[2]));

        Assert.Equal(2, result.LastTransactionId);
        Assert.Equal(0, result.TransactionsReplayed);
    }

    [Fact]
    public void A_next_journal_that_begins_with_another_environment_s_entry_continues_the_log()
    {
        using var scene = new RecoveryScene("shared-next");
        using var branch = new JournalEntryFactory(Guid.NewGuid());
        var log = new CapturingLoggerFactory();
        var stale = Enumerable.Repeat((byte)0xAB, JournalEntryHeader.Alignment).ToArray(); // what a recycled file's last life left
        scene.WriteJournal(1, [.. scene.OnePageEntries(1, 2), stale]);
        long length = new FileInfo(scene.JournalPath(1)).Length;
        long[] offsets = scene.WriteJournal(2, [JournalEntryFactory.Stamp(branch.Build(7, (207, 7)), scene.Header.EnvironmentId, 0), .. scene.OnePageEntries(3)]);

        var result = scene.Recover(logger: log.CreateLogger("recovery"));

        Assert.Equal(3, result.LastTransactionId);
        Assert.Equal(new JournalPosition(2, offsets[1] + JournalEntryFactory.OnePageEntrySize), result.Position);
        Assert.Empty(log.WithEventId(TornTailEvent));
        Assert.Equal(length, new FileInfo(scene.JournalPath(1)).Length);
        Assert.Equal([(1L, 2L, false), (2L, 3L, true)], result.Journals.Retained.Select(j => (j.Sequence, j.LastTransactionId, j.Shared)));
    }

    /// <summary>
    /// Found by <c>SharedJournalCrashTests</c> (seed 539254935, cycle 130): a root's recycled journal ends in its
    /// last life's bytes where the root switched files, its next journal was filled by branches alone, and the
    /// root's next transaction is in the journal after that. The log goes on there: no torn tail, no damage.
    /// Recovery used to look only at the very next journal, call the end a torn tail, find transaction 3 two
    /// journals on and throw "the journal is damaged in the middle", so the root could not be opened.
    /// </summary>
    [Fact]
    public void Journals_holding_only_other_environments_entries_do_not_break_the_log()
    {
        using var scene = new RecoveryScene("shared-next-others-only");
        using var branch = new JournalEntryFactory(Guid.NewGuid());
        var root = scene.Header.EnvironmentId;
        var log = new CapturingLoggerFactory();
        var stale = Enumerable.Repeat((byte)0xAB, JournalEntryHeader.Alignment).ToArray(); // what a recycled file's last life left
        scene.WriteJournal(1, [.. scene.OnePageEntries(1, 2), stale]);
        long length = new FileInfo(scene.JournalPath(1)).Length;
        scene.WriteJournal(2, [JournalEntryFactory.Stamp(branch.Build(7, (207, 7)), root, 0), JournalEntryFactory.Stamp(branch.Build(8, (208, 8)), root, 0), stale]);
        long[] offsets = scene.WriteJournal(3, [JournalEntryFactory.Stamp(branch.Build(9, (209, 9)), root, 0), .. scene.OnePageEntries(3)]);

        var result = scene.Recover(logger: log.CreateLogger("recovery"));

        Assert.Equal(3, result.LastTransactionId);
        Assert.Equal([101L, 102, 103], result.Pages.Select(p => p.PageNumber));
        Assert.Equal(new JournalPosition(3, offsets[1] + EntrySize), result.Position);
        Assert.Empty(log.WithEventId(TornTailEvent));
        Assert.Equal(length, new FileInfo(scene.JournalPath(1)).Length);
        Assert.Equal([(1L, 2L), (2L, -1L), (3L, 3L)], result.Journals.Retained.Select(j => (j.Sequence, j.LastTransactionId)));
    }

    [Theory]
    [InlineData(2)] // its write began with the root's transaction 3
    [InlineData(1)] // its write began with the torn entry
    [InlineData(3)] // its write was sent while the one that carried transaction 2 was still in flight (and 2 is whole)
    public void An_own_entry_after_a_torn_one_in_the_same_write_goes_with_the_torn_tail(int entriesBackToWriteStart)
    {
        using var scene = new RecoveryScene("shared-torn-write");
        using var branch = new JournalEntryFactory(Guid.NewGuid());
        var log = new CapturingLoggerFactory();
        long[] offsets = WriteTornSharedWrite(scene, branch, entriesBackToWriteStart * EntrySize);

        var result = scene.Recover(logger: log.CreateLogger("recovery"));

        Assert.Equal(3, result.LastTransactionId);
        Assert.Equal([101L, 102, 103], result.Pages.Select(p => p.PageNumber)); // not 104
        Assert.Equal(new JournalPosition(1, offsets[3]), result.Position);
        var torn = Assert.Single(log.WithEventId(TornTailEvent));
        Assert.Contains($"offset {offsets[3]}", torn.Message);
        Assert.Equal(offsets[3], new FileInfo(scene.JournalPath(1)).Length);
    }

    [Fact]
    public void An_own_entry_after_a_torn_one_whose_write_began_after_it_is_damage()
    {
        using var scene = new RecoveryScene("shared-torn-write-later");
        using var branch = new JournalEntryFactory(Guid.NewGuid());
        long[] offsets = WriteTornSharedWrite(scene, branch, bOffsetInWrite: 0);
        long length = new FileInfo(scene.JournalPath(1)).Length;

        var error = Assert.Throws<JournalCorruptionException>(() => scene.Recover());

        Assert.Equal(scene.JournalPath(1), error.FilePath);
        Assert.Equal(offsets[3], error.EntryOffset);
        Assert.Contains($"valid entry of transaction 4 follows in '{scene.JournalPath(1)}' at offset {offsets[4]}", error.Message);
        Assert.Equal(length, new FileInfo(scene.JournalPath(1)).Length);
    }

    [Fact]
    public void A_torn_tail_in_a_journal_with_another_name_is_left_in_place_and_the_journal_marked_shared()
    {
        using var scene = new RecoveryScene("shared-torn-linked");
        var log = new CapturingLoggerFactory();
        string path = scene.JournalPath(1);
        long[] offsets = scene.WriteJournal(1, scene.OnePageEntries(1, 2, 3));
        FileDamage.FlipBits(path, offsets[2] + PayloadByte);
        scene.WriteJournal(2, [], size: 16 * 1024); // a journal after the tail, with nothing in it
        string branchJournals = Path.Combine(Path.GetDirectoryName(scene.JournalDirectory)!, "branch", "Journals");
        Directory.CreateDirectory(branchJournals);
        string[] branchNames = [Path.Combine(branchJournals, "a.journal"), Path.Combine(branchJournals, "b.journal")];
        Cairn.Pal.PalFileSystem.HardLink(path, branchNames[0]);
        Cairn.Pal.PalFileSystem.HardLink(scene.JournalPath(2), branchNames[1]);
        byte[] before = File.ReadAllBytes(path);

        var result = scene.Recover(logger: log.CreateLogger("recovery"));

        Assert.Equal(2, result.LastTransactionId);
        Assert.Equal(new JournalPosition(1, offsets[2]), result.Position);
        Assert.Equal(before, File.ReadAllBytes(path)); // not cut, not changed
        Assert.Equal([new RetainedJournal(1, path, before.Length, 2, Shared: true)], result.Journals.Retained);
        Assert.Empty(log.WithEventId(TornTailEvent));
        var kept = Assert.Single(log.WithEventId(SharedTornTailEvent));
        Assert.Contains(path, kept.Message);
        Assert.Contains($"offset {offsets[2]}", kept.Message);
        Assert.False(File.Exists(scene.JournalPath(2))); // this environment's name of the later journal goes
        Assert.True(File.Exists(branchNames[1])); // the other stays
    }

    /// <summary>
    /// Journal 1: transactions 1 and 2 in writes of their own, then one write of the root's transaction 3
    /// (A), a branch's entry (F, whose payload is then damaged: the write was torn) and the root's 4 (B),
    /// stamped <paramref name="bOffsetInWrite"/>. Returns the five offsets.
    /// </summary>
    private static long[] WriteTornSharedWrite(RecoveryScene scene, JournalEntryFactory branch, long bOffsetInWrite)
    {
        var root = scene.Header.EnvironmentId;
        long[] offsets = scene.WriteJournal(1,
        [
            .. scene.OnePageEntries(1, 2, 3),
            JournalEntryFactory.Stamp(branch.Build(8, (208, 8)), root, EntrySize),
            JournalEntryFactory.Stamp(scene.Entries.Build(4, (104, 4)), Guid.Empty, bOffsetInWrite),
        ], size: 64 * 1024);
        FileDamage.FlipBits(scene.JournalPath(1), offsets[3] + PayloadByte);
        return offsets;
    }
}
