using Cairn.FreeSpace;
using Cairn.Paging;

namespace Cairn.Tests.FreeSpace;

/// <summary>
/// The free-space map on its own, over in-memory bitmap pages: where allocations come from, when a
/// freed page can be handed out again, what commit and rollback keep, how coverage grows, and what an
/// open rebuilds.
/// </summary>
public unsafe class FreeSpaceMapTests
{
    private const int BitsPerSection = FreeSpaceMap.BitsPerSection;

    [Fact]
    public void With_nothing_free_pages_come_from_the_high_water_mark_without_touching_the_bitmap()
    {
        using var h = new FreeSpaceHarness();

        Assert.Equal(4, h.Allocate());
        Assert.Equal(5, h.Allocate());
        Assert.Equal(6, h.Allocate(3));

        Assert.Equal(9, h.NextPageNumber);
        Assert.Equal(0, h.Map.AvailablePages);
        Assert.Empty(h.Pages.ModifiedInTransaction);
        Assert.Empty(h.Pages.CreatedInTransaction);
    }

    [Fact]
    public void A_released_page_is_reused_before_the_high_water_mark_grows()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(10); // pages 4..13
        h.MakeAvailable(6);
        long highWaterMark = h.NextPageNumber;

        Assert.Equal(6, h.Allocate());

        Assert.Equal(highWaterMark, h.NextPageNumber);
        Assert.False(h.IsMarkedFree(6));
        Assert.False(h.Map.IsAvailable(6));
        Assert.Equal(0, h.Map.AvailablePages);
        Assert.Equal([FreeSpaceHarness.FirstSectionPage], h.Pages.ModifiedInTransaction);
        Assert.Equal(highWaterMark, h.Allocate());
    }

    [Fact]
    public void Single_pages_are_handed_out_lowest_first_even_when_a_lower_one_is_released_later()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(20); // pages 4..23
        h.MakeAvailable(12, 7, 9);

        Assert.Equal(7, h.Allocate());
        h.Commit();
        h.MakeAvailable(5);

        Assert.Equal(5, h.Allocate());
        Assert.Equal(9, h.Allocate());
        Assert.Equal(12, h.Allocate());
        Assert.Equal(0, h.Map.AvailablePages);
    }

    [Fact]
    public void A_run_starting_at_the_lowest_free_page_is_taken_whole()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(40);
        h.MakeAvailable(10, 11, 12);

        Assert.Equal(10, h.Allocate(3));

        Assert.Equal(0, h.Map.AvailablePages);
        Assert.All(new long[] { 10, 11, 12 }, page => Assert.False(h.IsMarkedFree(page)));
    }

    [Fact]
    public void A_run_skips_free_gaps_too_short_for_it()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(40);
        h.MakeAvailable(8, 10, 11, 20, 21, 22, 23);

        // The lowest free page (8) starts no run of 3, nor does 10: the slow search goes on to 20.
        Assert.Equal(20, h.Allocate(3));
        Assert.Equal(10, h.Allocate(2));
        Assert.Equal(8, h.Allocate());

        Assert.Equal(1, h.Map.AvailablePages);
        Assert.True(h.Map.IsAvailable(23));
    }

    [Fact]
    public void A_run_may_span_two_words_of_the_in_memory_mirror()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(70); // pages 4..73
        h.MakeAvailable(5, 62, 63, 64, 65);

        Assert.Equal(62, h.Allocate(4));
        Assert.Equal(5, h.Allocate());
    }

    [Fact]
    public void A_run_longer_than_every_free_gap_comes_from_the_high_water_mark_and_leaves_the_gaps_free()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(30);
        h.MakeAvailable(10, 11, 20, 21);
        long highWaterMark = h.NextPageNumber;

        Assert.Equal(highWaterMark, h.Allocate(3));

        Assert.Equal(highWaterMark + 3, h.NextPageNumber);
        Assert.Equal(4, h.Map.AvailablePages);
        Assert.All(new long[] { 10, 11, 20, 21 }, page => Assert.True(h.Map.IsAvailable(page) && h.IsMarkedFree(page)));
    }

    [Fact]
    public void A_freed_page_is_free_on_disk_at_once_but_handed_out_only_after_release()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(3); // pages 4, 5, 6

        h.Free(5);
        Assert.True(h.IsMarkedFree(5));
        Assert.False(h.Map.IsAvailable(5));
        Assert.Equal(0, h.Map.AvailablePages);
        Assert.Equal(7, h.Allocate());
        h.Commit();

        Assert.False(h.Map.IsAvailable(5));
        Assert.Equal(8, h.Allocate()); // a reader may still see page 5
        h.Commit();

        h.Map.Release(5, 1);
        Assert.Equal(1, h.Map.AvailablePages);
        Assert.Equal(5, h.Allocate());
    }

    [Fact]
    public void Rollback_returns_the_transactions_allocations_and_undoes_its_bitmap_edits()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(10); // pages 4..13
        h.MakeAvailable(5, 6, 7);
        long highWaterMark = h.NextPageNumber;

        Assert.Equal(5, h.Allocate(2));
        Assert.Equal(7, h.Allocate());
        Assert.Equal(highWaterMark, h.Allocate());
        h.Free(4);
        h.Rollback();

        Assert.Equal(3, h.Map.AvailablePages);
        Assert.All(new long[] { 5, 6, 7 }, page => Assert.True(h.Map.IsAvailable(page) && h.IsMarkedFree(page)));
        Assert.False(h.IsMarkedFree(4));
        Assert.Equal(highWaterMark, h.NextPageNumber);
        Assert.Equal(5, h.Allocate());
    }

    [Fact]
    public void Commit_keeps_the_transactions_allocations_through_a_later_rollback()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(10);
        h.MakeAvailable(5, 6, 7);

        Assert.Equal(5, h.Allocate(2));
        h.Commit();
        h.Rollback();

        Assert.Equal(1, h.Map.AvailablePages);
        Assert.False(h.Map.IsAvailable(5) || h.Map.IsAvailable(6));
        Assert.False(h.IsMarkedFree(5) || h.IsMarkedFree(6));
        Assert.Equal(7, h.Allocate());
    }

    [Fact]
    public void Passing_the_first_sections_pages_adds_a_section_the_directory_lists()
    {
        using var h = new FreeSpaceHarness();
        h.Allocate(BitsPerSection - (int)FreeSpaceHarness.FirstDataPage);
        Assert.Equal(BitsPerSection, h.NextPageNumber);
        Assert.Equal([FreeSpaceHarness.FirstSectionPage], h.Sections()); // covers pages [0, 65,280) exactly

        long page = h.Allocate();

        // The new section takes the next page itself, so the allocation lands one page later.
        Assert.Equal([FreeSpaceHarness.FirstSectionPage, BitsPerSection], h.Sections());
        Assert.Equal(BitsPerSection + 1, page);
        Assert.Equal([(long)BitsPerSection], h.Pages.CreatedInTransaction);
        var header = (PageHeader*)h.Pages.GetPage(BitsPerSection);
        Assert.Equal(PageFlags.FreeSpaceBitmap, header->Flags);
        Assert.Equal(BitsPerSection, header->PageNumber);
        h.Commit();

        h.Free(page);
        h.Commit();
        Assert.True(h.IsMarkedFree(page));
        Assert.Equal(0b10UL, *(ulong*)(h.Pages.GetPage(BitsPerSection) + PageHeader.Size)); // bit 1 of the second section
        Assert.True(h.Load().IsAvailable(page));
        h.Map.Release(page, 1);
        Assert.Equal(page, h.Allocate());
    }

    [Fact]
    public void A_run_past_several_sections_adds_each_section_before_the_run()
    {
        using var h = new FreeSpaceHarness();

        long page = h.Allocate(2 * BitsPerSection);

        Assert.Equal([3, 4, 5], h.Sections());
        Assert.Equal(6, page);
        Assert.Equal(6 + 2L * BitsPerSection, h.NextPageNumber);
    }

    [Fact]
    public void A_full_directory_refuses_to_cover_more_and_a_rollback_forgets_the_attempt()
    {
        using var h = new FreeSpaceHarness();

        Assert.Throws<InvalidOperationException>(() => h.Allocate(FreeSpaceMap.MaxSections * BitsPerSection));
        h.Rollback();

        Assert.Equal([FreeSpaceHarness.FirstSectionPage], h.Sections());
        Assert.Equal(FreeSpaceHarness.FirstDataPage, h.Allocate());
    }

    [Fact]
    public void Load_makes_every_page_marked_free_below_the_high_water_mark_available()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(20); // pages 4..23
        h.Free(6);
        h.Free(7);
        h.Free(15);
        h.Free(40); // past the high-water mark: Load must not hand it out
        h.Commit();

        var loaded = h.Load();

        Assert.Equal(0, h.Map.AvailablePages); // the running map waits for readers; an open has none
        Assert.Equal(3, loaded.AvailablePages);
        Assert.Equal(FreeSpaceHarness.DirectoryPage, loaded.DirectoryPage);
        Assert.False(loaded.IsAvailable(40));
        for (long p = 0; p < h.NextPageNumber; p++)
            Assert.Equal(h.IsMarkedFree(p), loaded.IsAvailable(p));
    }

    [Fact]
    public void IsMarkedFree_reads_the_persistent_bit_and_is_false_past_the_listed_sections()
    {
        using var h = new FreeSpaceHarness();
        h.AllocateCommitted(3); // pages 4, 5, 6
        h.Free(5);

        Assert.True(h.IsMarkedFree(5));
        Assert.False(h.IsMarkedFree(4));
        Assert.False(h.IsMarkedFree(6));
        Assert.False(h.IsMarkedFree(2L * BitsPerSection + 5));
    }
}
