using Cairn.Paging;
using Cairn.Recovery;
using Cairn.Tests.Journal;

namespace Cairn.Tests.Recovery;

/// <summary>
/// <see cref="RecoveredPages"/> on its own, over a real data file: the newest version of a run wins, a
/// run over cached pages replaces them, a patch starts from the data file's copy, outgrowing the budget
/// writes the cache to the data file (and later patches start from there), and every rebuilt run is
/// validated at the end.
/// </summary>
public sealed unsafe class RecoveredPagesTests
{
    private const int PageSize = StorageConstants.PageSize;
    private const long Budget = 1 << 20;

    private static void Write(byte* run, byte[] image) => image.CopyTo(new Span<byte>(run, image.Length));

    private static byte[] Read(byte* run, int pageCount = 1) => new ReadOnlySpan<byte>(run, pageCount * PageSize).ToArray();

    private static void Free(RecoveryScene scene, List<(long PageNumber, PageVersion Version)> versions)
    {
        foreach (var (_, version) in versions)
            scene.Scratch.Free((byte*)version.Pointer, version.PageCount);
    }

    /// <summary>A two-page overflow run at <paramref name="pageNumber"/>, stamped.</summary>
    private static byte[] OverflowRun(long pageNumber)
    {
        var run = new byte[2 * PageSize];
        new Random(5).NextBytes(run);
        fixed (byte* p = run)
        {
            var header = (PageHeader*)p;
            header->Flags = PageFlags.Overflow;
            header->OverflowSize = PageSize; // with the 32-byte header: two pages
            PageChecksum.Stamp(p, pageNumber, 2);
        }
        return run;
    }

    [Fact]
    public void The_newest_version_of_a_run_wins()
    {
        using var scene = new RecoveryScene("recovered-newest");
        using var pages = new RecoveredPages(scene.DataFile, scene.Scratch, Budget);

        byte* first = pages.GetPageForWrite(40, 1, needsCurrentContent: false);
        Write(first, JournalEntryFactory.PageImage(40, 1));
        byte* again = pages.GetPageForWrite(40, 1, needsCurrentContent: true);
        Assert.True(first == again); // the cached run, as the last record left it: later records patch it in place
        Assert.Equal(JournalEntryFactory.PageImage(40, 1), Read(again));
        Write(again, JournalEntryFactory.PageImage(40, 2));

        var versions = pages.Complete(transactionId: 7);

        var (pageNumber, version) = Assert.Single(versions);
        Assert.Equal(40, pageNumber);
        Assert.Equal(7, version.TransactionId);
        Assert.Equal(JournalEntryFactory.PageImage(40, 2), Read((byte*)version.Pointer));
        Free(scene, versions);
    }

    [Fact]
    public void A_run_over_cached_pages_replaces_them_and_frees_their_memory()
    {
        using var scene = new RecoveryScene("recovered-overlap");
        using var pages = new RecoveredPages(scene.DataFile, scene.Scratch, Budget);
        long before = scene.Scratch.BytesInUse;
        Write(pages.GetPageForWrite(40, 1, needsCurrentContent: false), JournalEntryFactory.PageImage(40, 1));
        Write(pages.GetPageForWrite(41, 1, needsCurrentContent: false), JournalEntryFactory.PageImage(41, 2));

        // Without a base the record writes the whole run (a full image, or zeros and a patch), so the run may hold anything.
        byte* run = pages.GetPageForWrite(40, 2, needsCurrentContent: false);
        Write(run, OverflowRun(40));

        Assert.Equal(1, pages.RunCount);
        Assert.Equal(before + 2 * PageSize, scene.Scratch.BytesInUse);
        var versions = pages.Complete(transactionId: 3);
        var (pageNumber, version) = Assert.Single(versions);
        Assert.Equal((40, 2), (pageNumber, version.PageCount));
        Free(scene, versions);
    }

    [Fact]
    public void A_patch_starts_from_the_data_file_s_copy_and_pages_past_its_end_read_as_zeros()
    {
        using var scene = new RecoveryScene("recovered-base");
        using var pages = new RecoveredPages(scene.DataFile, scene.Scratch, Budget);
        byte[] onDisk;
        using (var view = scene.DataFile.Map())
            onDisk = new ReadOnlySpan<byte>(view.Base + 2 * PageSize, PageSize).ToArray(); // the free-space directory

        Assert.Equal(onDisk, Read(pages.GetPageForWrite(2, 1, needsCurrentContent: true)));
        Assert.Equal(new byte[PageSize], Read(pages.GetPageForWrite(scene.DataFile.PageCount + 10, 1, needsCurrentContent: true)));
    }

    [Fact]
    public void Outgrowing_the_budget_writes_the_cache_to_the_data_file_and_later_patches_start_from_there()
    {
        using var scene = new RecoveryScene("recovered-spill");
        using var pages = new RecoveredPages(scene.DataFile, scene.Scratch, budgetBytes: PageSize);
        long before = scene.Scratch.BytesInUse;
        Write(pages.GetPageForWrite(40, 1, needsCurrentContent: false), JournalEntryFactory.PageImage(40, 1));

        Write(pages.GetPageForWrite(41, 1, needsCurrentContent: false), JournalEntryFactory.PageImage(41, 2));
        Assert.Equal(1, pages.Spills);
        Assert.Equal(before + PageSize, scene.Scratch.BytesInUse); // page 40 left memory for the data file

        byte* patched = pages.GetPageForWrite(40, 1, needsCurrentContent: true);
        Assert.Equal(2, pages.Spills); // page 41 went the same way
        Assert.Equal(JournalEntryFactory.PageImage(40, 1), Read(patched));
        Write(patched, JournalEntryFactory.PageImage(40, 3));

        var versions = pages.Complete(transactionId: 9);

        var (pageNumber, version) = Assert.Single(versions); // page 41 is in the data file, validated there
        Assert.Equal(40, pageNumber);
        Assert.Equal(JournalEntryFactory.PageImage(40, 3), Read((byte*)version.Pointer));
        using (var view = scene.DataFile.Map())
            Assert.Equal(JournalEntryFactory.PageImage(41, 2), new ReadOnlySpan<byte>(view.Base + 41L * PageSize, PageSize).ToArray());
        Free(scene, versions);
    }

    [Fact]
    public void A_rebuilt_run_that_does_not_validate_is_reported_with_its_page()
    {
        using var scene = new RecoveryScene("recovered-invalid");
        using var pages = new RecoveredPages(scene.DataFile, scene.Scratch, Budget);
        var image = JournalEntryFactory.PageImage(60, 1);
        image[5000] ^= 1; // after the stamp: the checksum no longer matches
        Write(pages.GetPageForWrite(60, 1, needsCurrentContent: false), image);

        var error = Assert.Throws<PageCorruptionException>(() => pages.Complete(transactionId: 1));

        Assert.Equal(60, error.PageNumber);
        Assert.Equal(scene.DataFile.FilePath, error.FilePath);
    }

    [Fact]
    public void Dispose_frees_what_is_still_cached()
    {
        using var scene = new RecoveryScene("recovered-dispose");
        long before = scene.Scratch.BytesInUse;
        using (var pages = new RecoveredPages(scene.DataFile, scene.Scratch, Budget))
        {
            pages.GetPageForWrite(40, 1, needsCurrentContent: false);
            pages.GetPageForWrite(50, 2, needsCurrentContent: false);
            Assert.Equal(before + 3 * PageSize, scene.Scratch.BytesInUse);
        }
        Assert.Equal(before, scene.Scratch.BytesInUse);
    }
}
