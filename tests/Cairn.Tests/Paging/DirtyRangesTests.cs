using System.Runtime.CompilerServices;
using Cairn.Paging;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Paging;

/// <summary>The range set a dirty page records its writes in: merging, ordering, and the overflow to a coarser set.</summary>
public unsafe class DirtyRangesTests
{
    private static (int Start, int End)[] Of(DirtyRanges ranges)
    {
        var result = new (int, int)[ranges.Count];
        for (int k = 0; k < ranges.Count; k++)
            result[k] = (ranges.Start(k), ranges.End(k));
        return result;
    }

    private static DirtyRanges After(params (int Start, int End)[] writes)
    {
        var ranges = new DirtyRanges();
        ranges.StartWithHeader();
        foreach (var (start, end) in writes)
            ranges.Add(start, end);
        return ranges;
    }

    [Fact]
    public void A_fresh_copy_covers_its_header_only()
    {
        Assert.Equal([(0, PageHeader.Size)], Of(After()));
        Assert.False(After().IsWhole);
    }

    [Fact]
    public void Overlapping_and_close_writes_join_far_ones_do_not()
    {
        const int close = DirtyRanges.MergeDistance;
        Assert.Equal([(0, PageHeader.Size + 10)], Of(After((PageHeader.Size, PageHeader.Size + 10))));
        Assert.Equal([(0, 32), (1000, 1100)], Of(After((1000, 1050), (1040, 1100))));
        Assert.Equal([(0, 32), (1000, 1101 + close)], Of(After((1000, 1100), (1100 + close, 1101 + close))));
        Assert.Equal([(0, 32), (1000, 1100), (1101 + close, 1200)], Of(After((1000, 1100), (1101 + close, 1200))));
        // Inside an existing range: nothing changes.
        Assert.Equal([(0, 32), (1000, 1100)], Of(After((1000, 1100), (1010, 1020))));
        // An empty write records nothing.
        Assert.Equal([(0, 32)], Of(After((500, 500))));
    }

    [Fact]
    public void Writes_keep_the_ranges_sorted_and_a_bridging_write_joins_several()
    {
        Assert.Equal([(0, 32), (500, 600), (2000, 2100), (3000, 3100)], Of(After((3000, 3100), (500, 600), (2000, 2100))));
        Assert.Equal([(0, 32), (500, 3100)], Of(After((3000, 3100), (500, 600), (2000, 2100), (590, 3010))));
        Assert.Equal([(0, 600)], Of(After((500, 600), (20, 510))));
    }

    [Fact]
    public void One_range_too_many_joins_the_two_closest()
    {
        // Header, then ranges at 1000, 2000, 2300 (gap 200 to the one before), and a fifth at 3500.
        var ranges = After((1000, 1100), (2000, 2100), (2300, 2400), (3500, 3600));
        Assert.Equal([(0, 32), (1000, 1100), (2000, 2400), (3500, 3600)], Of(ranges));
        Assert.Equal(DirtyRanges.Capacity, ranges.Count);
    }

    [Fact]
    public void Whole_covers_everything_and_stays_whole()
    {
        var ranges = After((1000, 1100));
        ranges.SetWhole();
        Assert.True(ranges.IsWhole);
        ranges.Add(4000, 4096);
        ranges.Add(0, 1);
        Assert.True(ranges.IsWhole);
        Assert.Equal(0, ranges.Start(0));
        Assert.True(ranges.End(0) > PageRecordLimit);
    }

    // Larger than any page run a journal record holds.
    private const int PageRecordLimit = int.MaxValue - 4096;

    /// <summary>
    /// Against a byte map of what was written: every written byte is covered, ranges stay sorted and disjoint, and
    /// they never cover more than the span from the first to the last write (plus the header).
    /// </summary>
    [Fact]
    public void Random_writes_are_always_covered()
    {
        var writes = Gen.ArrayOf(Gen.Choose(0, 4095).SelectMany(start => Gen.Choose(1, 200).Select(length => (start, Math.Min(4096, start + length)))));
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(500).WithQuietOnSuccess(true), Prop.ForAll(Arb.From(writes), ((int, int)[] list) =>
        {
            var ranges = After(list);
            var written = new bool[4096];
            for (int i = 0; i < PageHeader.Size; i++)
                written[i] = true;
            foreach (var (start, end) in list)
                for (int i = start; i < end; i++)
                    written[i] = true;
            var covered = new bool[4096];
            int previousEnd = -1;
            for (int k = 0; k < ranges.Count; k++)
            {
                if (ranges.Start(k) <= previousEnd || ranges.End(k) <= ranges.Start(k))
                    return false;
                previousEnd = ranges.End(k);
                for (int i = ranges.Start(k); i < ranges.End(k); i++)
                    covered[i] = true;
            }
            int last = list.Length == 0 ? PageHeader.Size : Math.Max(PageHeader.Size, list.Max(w => w.Item2));
            return ranges.Count <= DirtyRanges.Capacity
                && Enumerable.Range(0, 4096).All(i => !written[i] || covered[i])
                && ranges.End(ranges.Count - 1) == last;
        }));
    }

    [Fact]
    public void The_store_hands_out_distinct_stable_sets_and_takes_them_all_back()
    {
        var store = new DirtyRangeStore();
        var handedOut = new List<nint>();
        for (int i = 0; i < 600; i++)
        {
            DirtyRanges* ranges = store.Rent();
            ranges->StartWithHeader();
            ranges->Add(1000 + i, 1001 + i);
            handedOut.Add((nint)ranges);
        }
        Assert.Equal(600, handedOut.Distinct().Count());
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        for (int i = 0; i < 600; i++)
            Assert.Equal(1001 + i, ((DirtyRanges*)handedOut[i])->End(1)); // still where it was handed out
        store.Clear();
        Assert.Equal(0, store.Used);
        for (int i = 0; i < 600; i++)
            Assert.Equal(handedOut[i], (nint)store.Rent());
    }
}
