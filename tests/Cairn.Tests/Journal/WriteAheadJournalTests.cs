using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Tests.Support;

namespace Cairn.Tests.Journal;

/// <summary>
/// <see cref="WriteAheadJournal"/> and its <see cref="JournalInventory"/> on their own, over a folder of
/// the test's: entries go back to back and read back with the entry reader; an entry that does not fit
/// goes to the next journal, a spare renamed into place when one is ready; full journals stay until a
/// sync covers them and are then deleted or kept for reuse.
/// </summary>
public sealed class WriteAheadJournalTests
{
    private static readonly Guid s_environment = Guid.NewGuid();

    [Fact]
    public void Appends_go_back_to_back_and_read_back_as_written()
    {
        using var dir = new TestDirectory("wal-append");
        using var wal = new JournalHarness(dir.Path, s_environment);

        var first = wal.Append(1, (100, 7));
        var second = wal.Append(2);

        Assert.Equal(new JournalPosition(1, JournalEntryFactory.OnePageEntrySize), first);
        Assert.Equal(new JournalPosition(1, JournalEntryFactory.OnePageEntrySize + JournalEntryFactory.EmptyEntrySize), second);
        string path = wal.JournalPath(1);
        Assert.Equal(JournalHarness.FileSize, new FileInfo(path).Length);
        Assert.Equal(JournalHarness.FileSize, wal.Journal.RetainedBytes);

        using var reader = new JournalEntryReader();
        using var target = new MemoryTarget();
        var bytes = File.ReadAllBytes(path);
        var entry = bytes[..JournalEntryFactory.OnePageEntrySize];
        Assert.Equal(1, JournalTestEntries.Apply(reader, entry, target));
        Assert.Equal(JournalEntryFactory.PageImage(100, 7), target.Bytes(100));
        var next = JournalHarness.EntryAt(path, first.EndOffset);
        Assert.True(next.IsValid, next.ToString());
        Assert.Equal(2, next.Header.TransactionId);
        Assert.Equal(s_environment, next.Header.EnvironmentId);
    }

    [Fact]
    public void An_entry_that_does_not_fit_goes_to_the_next_journal_a_ready_spare_renamed_into_place()
    {
        using var dir = new TestDirectory("wal-switch");
        var log = new CapturingLoggerFactory();
        using var wal = new JournalHarness(dir.Path, s_environment, prepareSpares: true, logger: log.CreateLogger("journal"));

        Assert.True(wal.Spares.Wanted); // at open: there is no journal yet, and no spare
        wal.Spares.PrepareNow();
        Assert.False(wal.Spares.Wanted);
        Assert.Equal([new RecyclableJournal(wal.RecyclablePath(1), JournalHarness.FileSize)], wal.Inventory.Snapshot().Recyclable);

        Assert.Equal(new JournalPosition(1, JournalEntryFactory.OnePageEntrySize), wal.Append(1, (100, 1)));
        Assert.False(File.Exists(wal.RecyclablePath(1)));
        Assert.Empty(wal.Inventory.Snapshot().Recyclable);
        Assert.True(wal.Spares.Wanted); // past half full with no spare ready
        wal.Spares.PrepareNow();

        // 12 KiB more do not fit in what is left of 16 KiB: the next journal takes the spare.
        Assert.Equal(new JournalPosition(2, JournalEntryFactory.OnePageEntrySize), wal.Append(2, (101, 2)));
        Assert.False(File.Exists(wal.RecyclablePath(2)));
        Assert.Equal([new RetainedJournal(1, wal.JournalPath(1), JournalHarness.FileSize, 1)], wal.Inventory.Snapshot().Retained);
        Assert.Equal(2 * JournalHarness.FileSize, wal.Journal.RetainedBytes);

        // No spare this time: the switch creates and pre-zeroes the file itself.
        Assert.Equal(new JournalPosition(3, JournalEntryFactory.OnePageEntrySize), wal.Append(3, (102, 3)));
        Assert.Equal(JournalHarness.FileSize, new FileInfo(wal.JournalPath(3)).Length);
        var created = log.WithEventId(1201).Select(r => r.Message).ToArray();
        Assert.Equal(3, created.Length);
        Assert.Contains("recycled from " + JournalFileName.Recyclable(1), created[0]);
        Assert.Contains("recycled from " + JournalFileName.Recyclable(2), created[1]);
        Assert.Contains("new, pre-zeroed", created[2]);
        Assert.Equal([1L, 0, 0, 0], JournalHarness.TransactionsByBlock(wal.JournalPath(1)));
        Assert.Equal([3L, 0, 0, 0], JournalHarness.TransactionsByBlock(wal.JournalPath(3)));
    }

    [Fact]
    public void Release_recycles_or_deletes_only_the_full_journals_a_sync_covers()
    {
        using var dir = new TestDirectory("wal-release");
        using var wal = new JournalHarness(dir.Path, s_environment);
        wal.AppendOnePageEach(1, 2, 3, 4); // journals 1 to 4, one transaction each; 4 is in service

        Assert.Equal((0, 0), wal.Journal.Release(0));
        Assert.Equal(4 * JournalHarness.FileSize, wal.Journal.RetainedBytes);

        // Two files are kept for reuse at most: journals 1 and 2 become spares, 3 is deleted.
        Assert.Equal((0, 2), wal.Journal.Release(2));
        Assert.Equal((1, 0), wal.Journal.Release(3));
        Assert.Equal(
            [JournalFileName.For(4), JournalFileName.Recyclable(1), JournalFileName.Recyclable(2)],
            Directory.GetFiles(dir.Path).Select(Path.GetFileName).Order(StringComparer.Ordinal));
        Assert.Equal([1L, 0, 0, 0], JournalHarness.TransactionsByBlock(wal.RecyclablePath(1))); // renamed, not rewritten

        // The journal in service stays, whatever the sync covers; a clean close lets it go too.
        Assert.Equal((0, 0), wal.Journal.Release(long.MaxValue));
        Assert.True(File.Exists(wal.JournalPath(4)));
        Assert.Equal(JournalHarness.FileSize, wal.Journal.RetainedBytes);
        Assert.Equal((1, 0), wal.Journal.ReleaseAll());
        Assert.Equal(0, wal.Journal.RetainedBytes);
        Assert.Equal(2, Directory.GetFiles(dir.Path).Length);
    }

    [Fact]
    public void Journals_of_an_unusual_size_are_deleted_not_kept_for_reuse()
    {
        using var dir = new TestDirectory("wal-release-sizes");
        // A journal recovery cut short at a torn tail: smaller than any journal the sizing makes.
        string torn = Path.Combine(dir.Path, JournalFileName.For(5));
        File.WriteAllBytes(torn, new byte[8192]);
        var files = new JournalFileSet(6, [new RetainedJournal(5, torn, 8192, 9)], [], 1);
        using var wal = new JournalHarness(dir.Path, s_environment, files: files);

        // Two pages (20 KiB) are more than the 16 KiB cap: the entry gets a journal of exactly its size.
        wal.Append(10, (100, 1), (101, 2));
        wal.Append(11, (102, 3));
        Assert.Equal(20 * 1024, new FileInfo(wal.JournalPath(6)).Length);

        Assert.Equal((2, 0), wal.Journal.Release(10));
        Assert.Equal([JournalFileName.For(7)], Directory.GetFiles(dir.Path).Select(Path.GetFileName));
        Assert.Empty(wal.Inventory.Snapshot().Recyclable);
    }

    [Fact]
    public void A_recycled_file_takes_the_next_sequence_number_and_keeps_its_old_entries_behind_the_new_ones()
    {
        using var dir = new TestDirectory("wal-recycle");
        using var wal = new JournalHarness(dir.Path, s_environment);
        wal.FillTwoJournalsRecyclingTheFirst();
        Assert.True(File.Exists(wal.RecyclablePath(1)));

        Assert.Equal(new JournalPosition(3, JournalEntryFactory.EmptyEntrySize), wal.Append(9));

        Assert.False(File.Exists(wal.RecyclablePath(1)));
        Assert.False(File.Exists(wal.JournalPath(1)));
        // Nothing wipes a recycled file: its old entries are valid entries of this environment behind the
        // new one. What tells them apart is their transaction ids, lower than the one before them, where
        // recovery ends the log (JournalRecoveryTests: a recycled journal's old entries end the log).
        Assert.Equal([9L, 2, 3, 4], JournalHarness.TransactionsByBlock(wal.JournalPath(3)));
        var stale = JournalHarness.EntryAt(wal.JournalPath(3), JournalEntryFactory.EmptyEntrySize);
        Assert.Equal(s_environment, stale.Header.EnvironmentId);
    }
}
