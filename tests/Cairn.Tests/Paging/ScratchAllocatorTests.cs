using System.Collections.Concurrent;
using Cairn.Paging;

namespace Cairn.Tests.Paging;

/// <summary>The arena allocator behind scratch memory: reuse, exact accounting, zeroing, giving memory back, frees from other threads.</summary>
public class ScratchAllocatorTests
{
    private const int PageSize = StorageConstants.PageSize;
    private const long Arena = ScratchAllocator.ArenaBytes;

    [Fact]
    public unsafe void A_freed_page_is_handed_out_again_before_fresh_memory()
    {
        using var scratch = new ScratchAllocator();
        byte* first = scratch.Allocate(1);
        byte* second = scratch.Allocate(1);
        Assert.Equal(Arena, scratch.MappedBytes);
        scratch.Free(first, 1);
        Assert.True(first == scratch.Allocate(1));
        Assert.True(second + PageSize == scratch.Allocate(1)); // fresh pages are carved in order
        Assert.Equal(Arena, scratch.MappedBytes);
        Assert.Equal(3L * PageSize, scratch.BytesInUse);
    }

    [Fact]
    public unsafe void Bytes_in_use_count_live_pages_exactly_and_mapped_bytes_follow_arenas_and_dedicated_runs()
    {
        using var scratch = new ScratchAllocator(retainedSpareBytes: 0);
        byte* page = scratch.Allocate(1);
        byte* run = scratch.Allocate(3);
        int longRun = ScratchAllocator.MaxArenaRun + 1;
        byte* dedicated = scratch.Allocate(longRun);
        Assert.Equal((1L + 3 + longRun) * PageSize, scratch.BytesInUse);
        Assert.Equal(Arena + (long)longRun * PageSize, scratch.MappedBytes);

        scratch.Free(dedicated, longRun); // a dedicated run is unmapped at once
        Assert.Equal(4L * PageSize, scratch.BytesInUse);
        Assert.Equal(Arena, scratch.MappedBytes);
        scratch.Free(run, 3);
        scratch.Free(page, 1);
        Assert.Equal(0, scratch.BytesInUse);
        // The arena being carved stays mapped until released as spare.
        Assert.Equal(Arena, scratch.MappedBytes);
        Assert.Equal(Arena, scratch.ReleaseSpare());
        Assert.Equal(0, scratch.MappedBytes);
    }

    /// <summary>
    /// Issue 30, item 1: the untouched tail of an arena (pages past the last run carved from it) goes to its free
    /// pages when a run does not fit. A page handed out from there once, written and freed, was still counted as
    /// never touched, so the next zeroed allocation of it skipped the clear: a new free-space bitmap section came out
    /// of it holding the old bytes, marking pages in use as free.
    /// </summary>
    [Fact]
    public unsafe void A_tail_page_handed_out_written_and_freed_is_zero_when_handed_out_zeroed_again()
    {
        using var scratch = new ScratchAllocator();
        // Carve most of the first arena, then a run that does not fit in what is left: the rest becomes free pages.
        var carved = new List<nint>();
        for (int i = 0; i < 4; i++)
            carved.Add((nint)scratch.Allocate(50));
        byte* elsewhere = scratch.Allocate(ScratchAllocator.MaxArenaRun);
        byte* tail = scratch.Allocate(1);
        Assert.True(tail >= (byte*)carved[0] && tail < (byte*)carved[0] + Arena, "the single page comes from the first arena's tail");
        new Span<byte>(tail, PageSize).Fill(0xA5);
        scratch.Free(tail, 1);

        byte* again = scratch.AllocateZeroed(1);
        Assert.True(again == tail, "the freed page is handed out again first");
        Assert.True(new Span<byte>(again, PageSize).IndexOfAnyExcept((byte)0) < 0, "a zeroed page holds what it held before");
        scratch.Free(again, 1);
        scratch.Free(elsewhere, ScratchAllocator.MaxArenaRun);
        foreach (var run in carved)
            scratch.Free((byte*)run, 50);
    }

    /// <summary>
    /// Every page of every zeroed allocation is zero, whatever mix of single pages, runs, frees, emptied arenas and
    /// reused tails came before it (a seeded sequence; every live allocation is filled with non-zero bytes).
    /// </summary>
    [Fact]
    public unsafe void Zeroed_allocations_are_zero_after_any_sequence_of_allocations_and_frees()
    {
        using var scratch = new ScratchAllocator();
        var random = new Random(30);
        var live = new List<(nint Memory, int Pages)>();
        for (int step = 0; step < 20_000; step++)
        {
            if (live.Count > 0 && (random.Next(2) == 0 || live.Count > 400))
            {
                int index = random.Next(live.Count);
                var (memory, pages) = live[index];
                live[index] = live[^1];
                live.RemoveAt(live.Count - 1);
                scratch.Free((byte*)memory, pages);
                continue;
            }
            int count = random.Next(4) == 0 ? random.Next(1, ScratchAllocator.MaxArenaRun + 1) : 1;
            bool zeroed = random.Next(2) == 0;
            byte* allocated = zeroed ? scratch.AllocateZeroed(count) : scratch.Allocate(count);
            var bytes = new Span<byte>(allocated, count * PageSize);
            if (zeroed)
                Assert.True(bytes.IndexOfAnyExcept((byte)0) < 0, $"step {step}: a zeroed allocation of {count} page(s) holds old bytes");
            bytes.Fill((byte)(1 + step % 255));
            live.Add(((nint)allocated, count));
        }
        foreach (var (memory, pages) in live)
            scratch.Free((byte*)memory, pages);
        Assert.Equal(0, scratch.BytesInUse);
    }

    [Fact]
    public unsafe void Zeroed_pages_are_zero_also_when_reused_and_runs_are_contiguous()
    {
        using var scratch = new ScratchAllocator();
        byte* run = scratch.Allocate(4);
        new Span<byte>(run, 4 * PageSize).Fill(0xA5); // the whole run is writable
        scratch.Free(run, 4);
        for (int i = 0; i < 4; i++)
        {
            byte* page = scratch.AllocateZeroed(1);
            Assert.True(page >= run && page < run + 4 * PageSize, "freed pages of a run are reused one by one");
            Assert.True(new Span<byte>(page, PageSize).IndexOfAnyExcept((byte)0) < 0);
        }
        byte* fresh = scratch.AllocateZeroed(2);
        Assert.True(new Span<byte>(fresh, 2 * PageSize).IndexOfAnyExcept((byte)0) < 0);
    }

    [Fact]
    public unsafe void A_run_that_does_not_fit_the_arena_starts_a_new_one_and_the_rest_is_reused_for_single_pages()
    {
        using var scratch = new ScratchAllocator();
        byte* first = scratch.Allocate(1);
        var runs = new List<nint>();
        // 1 + 5 × 50 = 251 pages carved; a run of 50 no longer fits the 256-page arena.
        for (int i = 0; i < 5; i++)
            runs.Add((nint)scratch.Allocate(50));
        byte* next = scratch.Allocate(50);
        Assert.Equal(2 * Arena, scratch.MappedBytes);
        Assert.False(next >= first && next < first + Arena);
        // The first arena's last 5 pages are free now and go out before the second arena's fresh pages.
        for (int i = 0; i < 5; i++)
        {
            byte* page = scratch.Allocate(1);
            Assert.True(page >= first + 251L * PageSize && page < first + Arena);
        }
        Assert.Equal((1L + 6 * 50 + 5) * PageSize, scratch.BytesInUse);
    }

    [Fact]
    public unsafe void An_emptied_arena_is_kept_up_to_the_retained_spare_and_unmapped_beyond_it()
    {
        using var kept = new ScratchAllocator(retainedSpareBytes: Arena);
        FillTwoArenasAndEmptyTheFirst(kept);
        Assert.Equal(2 * Arena, kept.MappedBytes); // within the retained spare
        Assert.True(kept.HoldsSpareMemory);

        using var unmapped = new ScratchAllocator(retainedSpareBytes: 0);
        FillTwoArenasAndEmptyTheFirst(unmapped);
        Assert.Equal(Arena, unmapped.MappedBytes);
        Assert.False(unmapped.HoldsSpareMemory);
    }

    private static unsafe void FillTwoArenasAndEmptyTheFirst(ScratchAllocator scratch)
    {
        var pages = new List<nint>();
        for (int i = 0; i < ScratchAllocator.PagesPerArena; i++)
            pages.Add((nint)scratch.Allocate(1));
        scratch.Allocate(1); // the second arena, now the one being carved
        foreach (nint page in pages)
            scratch.Free((byte*)page, 1);
        Assert.Equal(PageSize, scratch.BytesInUse);
    }

    [Fact]
    public unsafe void Spare_arenas_go_back_only_after_an_idle_check_with_no_allocation_since_the_previous_one()
    {
        using var scratch = new ScratchAllocator(retainedSpareBytes: long.MaxValue);
        FillTwoArenasAndEmptyTheFirst(scratch);
        Assert.Equal(0, scratch.ReleaseSpareIfIdle()); // the first check only takes note
        scratch.Free(scratch.Allocate(1), 1);
        Assert.Equal(0, scratch.ReleaseSpareIfIdle()); // something was allocated since: a busy writer's pause
        Assert.Equal(Arena, scratch.ReleaseSpareIfIdle());
        Assert.Equal(Arena, scratch.MappedBytes); // the arena with a live page stays
        Assert.False(scratch.HoldsSpareMemory);
        Assert.Equal(PageSize, scratch.BytesInUse);
    }

    [Fact]
    public unsafe void A_spare_arena_is_reused_before_a_new_one_is_mapped()
    {
        using var scratch = new ScratchAllocator(retainedSpareBytes: long.MaxValue);
        FillTwoArenasAndEmptyTheFirst(scratch);
        for (int i = 0; i < 2 * ScratchAllocator.PagesPerArena - 1; i++)
            scratch.Allocate(1);
        Assert.Equal(2 * Arena, scratch.MappedBytes);
        Assert.Equal(2 * Arena, scratch.BytesInUse);
    }

    [Fact]
    public async Task Pages_freed_on_other_threads_while_the_writer_allocates_are_never_handed_out_twice()
    {
        using var scratch = new ScratchAllocator(retainedSpareBytes: 0);
        const int Rounds = 200;
        const int PerRound = 300;
        var live = new ConcurrentDictionary<nint, bool>(); // pages allocated and not yet freed
        var freers = new List<Task>();
        for (int round = 0; round < Rounds; round++)
        {
            nint[] batch = AllocateBatch(scratch, live, round, PerRound);
            // Two other threads free the batch (as the flusher and the reclaimer do) while this one allocates the next.
            freers.Add(FreeOnAnotherThread(scratch, live, batch, 0, PerRound / 2, round));
            freers.Add(FreeOnAnotherThread(scratch, live, batch, PerRound / 2, PerRound, round));
        }
        await Task.WhenAll(freers);
        Assert.Equal(0, scratch.BytesInUse);
        scratch.ReleaseSpare();
        Assert.Equal(0, scratch.MappedBytes);
    }

    /// <summary>Allocates and stamps a batch, checking that no live page comes back.</summary>
    private static unsafe nint[] AllocateBatch(ScratchAllocator scratch, ConcurrentDictionary<nint, bool> live, int round, int count)
    {
        var batch = new nint[count];
        for (int i = 0; i < count; i++)
        {
            byte* memory = scratch.Allocate(SizeOf(i));
            for (int p = 0; p < SizeOf(i); p++)
                Assert.True(live.TryAdd((nint)(memory + (long)p * PageSize), true), "a live page was handed out again");
            Stamp(memory, round, i);
            batch[i] = (nint)memory;
        }
        return batch;
    }

    private static int SizeOf(int index) => index % 7 == 0 ? 2 : 1;

    private static unsafe Task FreeOnAnotherThread(ScratchAllocator scratch, ConcurrentDictionary<nint, bool> live, nint[] batch, int from, int to, int round) => Task.Run(() =>
    {
        for (int i = from; i < to; i++)
        {
            Assert.Equal(round * 100_000L + i, *(long*)batch[i]); // nothing else wrote into it while it was live
            for (int p = 0; p < SizeOf(i); p++)
                Assert.True(live.TryRemove(batch[i] + (nint)p * PageSize, out _));
            scratch.Free((byte*)batch[i], SizeOf(i));
        }
    });

    private static unsafe void Stamp(byte* memory, int round, int index) => *(long*)memory = round * 100_000L + index;
}
