using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Tests.Support;

namespace Cairn.Tests.Journal;

/// <summary>
/// Journals for large entries (issue 29, item 8): an entry of a MiB or more that finds no recycled file gets a
/// new journal that is not pre-zeroed (its write allocates the blocks), no spare is zeroed while such entries
/// fill the journal in service, and a retired unzeroed journal counts, and is recycled, at the bytes it holds.
/// Linux only: elsewhere every journal is pre-zeroed.
/// </summary>
public sealed class UnzeroedJournalTests
{
    private const long FileSize = 4L << 20;

    // 130 pages of 8 KiB: one entry just over 1 MiB.
    private static readonly (long PageNumber, int Seed)[] s_largePages =
        Enumerable.Range(0, 130).Select(i => (100L + i, i)).ToArray();

    [Fact]
    public void A_large_entry_with_no_spare_opens_a_journal_that_is_not_pre_zeroed()
    {
        if (!OperatingSystem.IsLinux())
            return;
        using var dir = new TestDirectory("wal-unzeroed");
        using var wal = new JournalHarness(dir.Path, Guid.NewGuid(), fileSize: FileSize);

        var large = wal.Append(1, s_largePages);
        string path = wal.JournalPath(1);
        Assert.True(large.EndOffset >= JournalSizing.UnzeroedEntryBytes);
        Assert.Equal(large.EndOffset, new FileInfo(path).Length); // the entry's bytes, no zeros past them

        var small = wal.Append(2); // a small entry extends the file by its own write
        Assert.Equal(small.EndOffset, new FileInfo(path).Length);
        Assert.Equal([1L, 2L], ValidTransactions(path));
    }

    [Fact]
    public void A_small_entry_still_opens_a_pre_zeroed_journal()
    {
        using var dir = new TestDirectory("wal-zeroed");
        using var wal = new JournalHarness(dir.Path, Guid.NewGuid(), fileSize: FileSize);

        wal.Append(1, (100, 1));

        Assert.Equal(FileSize, new FileInfo(wal.JournalPath(1)).Length);
    }

    [Fact]
    public void No_spare_is_zeroed_while_large_entries_fill_the_journal()
    {
        if (!OperatingSystem.IsLinux())
            return;
        using var dir = new TestDirectory("wal-unzeroed-spare");
        using var wal = new JournalHarness(dir.Path, Guid.NewGuid(), prepareSpares: true, fileSize: FileSize);
        wal.Spares.PrepareNow(); // the spare wanted at open (nothing known yet): taken by the first switch

        wal.Append(1, s_largePages);
        wal.Append(2, s_largePages); // past half full

        Assert.False(wal.Spares.Wanted);
        Assert.Equal(0, wal.Inventory.SpareSizeWanted());
    }

    [Fact]
    public void A_retired_unzeroed_journal_is_kept_and_recycled_at_the_bytes_it_holds()
    {
        if (!OperatingSystem.IsLinux())
            return;
        using var dir = new TestDirectory("wal-unzeroed-recycle");
        using var wal = new JournalHarness(dir.Path, Guid.NewGuid(), fileSize: FileSize, initialFileSize: JournalSizing.UnzeroedEntryBytes);
        var first = wal.Append(1, s_largePages); // journal 1: 2 MiB at most, one entry
        wal.Append(2, s_largePages); // does not fit: journal 2 opens, unzeroed too

        Assert.Equal(2, wal.Journal.ActiveFile!.Sequence);
        Assert.Equal(first.EndOffset + wal.Journal.ActiveFile.Size, wal.Journal.RetainedBytes);
        Assert.Equal((0, 1), wal.Journal.Release(1));
        var recycled = Assert.Single(wal.Inventory.Snapshot().Recyclable);
        Assert.Equal(first.EndOffset, recycled.Size);
        Assert.Equal(first.EndOffset, new FileInfo(recycled.FilePath).Length);
    }

    private static long[] ValidTransactions(string path)
        => JournalHarness.TransactionsByBlock(path).Where(id => id != 0).ToArray();
}
