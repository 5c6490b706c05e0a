using Cairn.Recovery;
using FsCheck.Xunit;

namespace Cairn.Tests.Recovery;

/// <summary>
/// <see cref="PageRunMap"/>: runs found by their first page and by any page inside them, across chunk
/// boundaries, listed in page order; a run is never laid over another; and random sequences of replays
/// agree with a plain dictionary model.
/// </summary>
public sealed class PageRunMapTests
{
    private const int Chunk = PageRunMap.ChunkPages;

    [Fact]
    public void A_run_is_found_by_its_first_page_and_by_the_pages_inside_it()
    {
        var map = new PageRunMap();
        map.Set(Chunk - 2, 0x1000, 4); // pages Chunk-2 .. Chunk+1: across a chunk boundary

        Assert.True(map.TryGetRun(Chunk - 2, out nint pointer, out int count));
        Assert.Equal((0x1000, 4), (pointer, count));
        Assert.False(map.TryGetRun(Chunk - 1, out _, out _)); // inside, not a start
        for (long page = Chunk - 2; page < Chunk + 2; page++)
            Assert.Equal(Chunk - 2, map.FirstPageOf(page));
        Assert.Equal(-1, map.FirstPageOf(Chunk - 3));
        Assert.Equal(-1, map.FirstPageOf(Chunk + 2));
        Assert.Equal(-1, map.FirstPageOf(50 * Chunk)); // no chunk there at all
        Assert.Equal(1, map.Count);
    }

    [Fact]
    public void Setting_a_run_again_with_the_same_count_changes_only_its_pointer()
    {
        var map = new PageRunMap();
        map.Set(7, 0x2000, 2);
        map.Set(7, 0, 2); // written to the data file by a spill

        Assert.True(map.TryGetRun(7, out nint pointer, out int count));
        Assert.Equal((0, 2), (pointer, count));
        Assert.Equal(7, map.FirstPageOf(8));
        Assert.Equal(1, map.Count);
    }

    [Fact]
    public void A_run_over_another_is_refused_and_changes_nothing()
    {
        var map = new PageRunMap();
        map.Set(10, 0x3000, 3);

        Assert.Throws<InvalidOperationException>(() => map.Set(10, 0x4000, 1)); // same start, other count
        Assert.Throws<InvalidOperationException>(() => map.Set(11, 0x4000, 1)); // inside
        Assert.Throws<InvalidOperationException>(() => map.Set(8, 0x4000, 3)); // its end over the run's start

        Assert.Equal([(10L, (nint)0x3000, 3)], map.Runs());
        Assert.Equal(-1, map.FirstPageOf(8));
        Assert.Equal(-1, map.FirstPageOf(9));
    }

    [Fact]
    public void Removing_a_run_frees_all_its_pages()
    {
        var map = new PageRunMap();
        map.Set(Chunk - 1, 0x5000, 2);

        Assert.False(map.Remove(Chunk, out _, out _)); // not a start
        Assert.True(map.Remove(Chunk - 1, out nint pointer, out int count));
        Assert.Equal((0x5000, 2), (pointer, count));
        Assert.Equal(-1, map.FirstPageOf(Chunk));
        Assert.Equal(0, map.Count);
        map.Set(Chunk, 0x6000, 1); // the freed page takes a new run
        Assert.Equal([((long)Chunk, (nint)0x6000, 1)], map.Runs());
    }

    [Fact]
    public void Runs_come_out_in_page_order_and_Clear_empties_the_map()
    {
        var map = new PageRunMap();
        foreach (long page in new long[] { 3 * Chunk + 5, 2, 9 * Chunk, Chunk + 1, 3 })
            map.Set(page, (nint)(page + 1), 1);

        Assert.Equal(new long[] { 2, 3, Chunk + 1, 3 * Chunk + 5, 9 * Chunk }, map.Runs().Select(r => r.PageNumber));
        map.Clear();
        Assert.Empty(map.Runs());
        Assert.Equal(0, map.Count);
        Assert.Equal(-1, map.FirstPageOf(2));
    }

    /// <summary>
    /// What <see cref="RecoveredPages"/> does for every record (remove whatever covers the new run's pages, then
    /// set it), and spills (every pointer set to 0), against a model of run starts and counts.
    /// </summary>
    [Property(MaxTest = 300)]
    public void Random_replays_agree_with_a_dictionary_model(int seed)
    {
        var random = new Random(seed);
        var map = new PageRunMap();
        var model = new SortedDictionary<long, (nint Pointer, int Count)>();
        int span = random.Next(1, 4) * Chunk; // pages in play: runs cross chunk boundaries often
        for (int step = random.Next(1, 400); step > 0; step--)
        {
            if (random.Next(40) == 0)
            {
                foreach (var (page, run) in model.ToArray())
                {
                    map.Set(page, 0, run.Count);
                    model[page] = (0, run.Count);
                }
                continue;
            }
            long first = random.Next(span);
            int count = random.Next(10) == 0 ? random.Next(2, 6) : 1;
            for (long p = first; p < first + count; p++)
            {
                long owner = ModelFirstPageOf(model, p);
                Assert.Equal(owner, map.FirstPageOf(p));
                if (owner < 0)
                    continue;
                Assert.True(map.Remove(owner, out nint removed, out int removedCount));
                Assert.Equal(model[owner], (removed, removedCount));
                model.Remove(owner);
            }
            nint pointer = random.Next(1, int.MaxValue);
            map.Set(first, pointer, count);
            model[first] = (pointer, count);
        }

        Assert.Equal(model.Count, map.Count);
        Assert.Equal(model.Select(m => (m.Key, m.Value.Pointer, m.Value.Count)), map.Runs());
        for (long page = 0; page < span + 8; page++)
            Assert.Equal(ModelFirstPageOf(model, page), map.FirstPageOf(page));
    }

    private static long ModelFirstPageOf(SortedDictionary<long, (nint Pointer, int Count)> model, long page)
    {
        foreach (var (first, run) in model)
        {
            if (first > page)
                break;
            if (page < first + run.Count)
                return first;
        }
        return -1;
    }
}
