using Cairn.Paging;
using Cairn.Trees;

namespace Cairn.Tests.Trees;

/// <summary>
/// Every tree operation records the bytes it writes: each change below is committed on its own, and
/// <see cref="MemoryPageAccess.Commit"/> compares each modified page with its previous version outside its recorded
/// ranges (<see cref="DirtyRangeChecks.Verify"/>), so a write path that misses a byte fails here by name.
/// </summary>
public unsafe class BTreeDirtyRangeTests
{
    /// <summary>Commits what came before, runs <paramref name="change"/> alone and commits it; returns the pages checked.</summary>
    private static long Alone(TreeHarness h, Action change)
    {
        h.Pages.Commit();
        long before = h.Pages.CheckedPages;
        change();
        h.Pages.Commit();
        return h.Pages.CheckedPages - before;
    }

    private static int CoveredBytes(DirtyRanges* ranges)
    {
        int bytes = 0;
        for (int k = 0; k < ranges->Count; k++)
            bytes += Math.Min(ranges->End(k), StorageConstants.PageSize) - ranges->Start(k);
        return bytes;
    }

    [Fact]
    public void An_insert_records_the_header_the_shifted_slots_and_its_node_only()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 80; i += 2)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 50));
        h.Pages.Commit();
        long leaf = h.Tree.State.RootPage;
        h.Put(TreeHarness.Key(41), TreeHarness.Value(41, 50));
        DirtyRanges* ranges = h.Pages.RangesOf(leaf);
        // The header, the slots from the insert point on (20 shifted by one, 1 new: slot 20 of 41 is the new one)
        // and the 61-byte node: not the page.
        Assert.True(ranges->Count <= 3, ranges->ToString());
        Assert.Equal(PageHeader.Size + 41 * sizeof(ushort), ranges->End(ranges->Count - 2));
        Assert.Equal(7 + 4 + 50, ranges->End(ranges->Count - 1) - ranges->Start(ranges->Count - 1));
        Assert.True(CoveredBytes(ranges) < 200, ranges->ToString());
        long before = h.Pages.CheckedPages;
        h.Pages.Commit();
        Assert.Equal(before + 1, h.Pages.CheckedPages);
        h.CheckAll();
    }

    [Fact]
    public void Replacing_in_place_with_a_new_size_and_through_overflow_is_covered()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 30; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 60));
        Assert.Equal(1, Alone(h, () => h.Put(TreeHarness.Key(7), TreeHarness.Value(1000, 60)))); // same footprint, in place
        Assert.Equal(1, Alone(h, () => h.Put(TreeHarness.Key(8), TreeHarness.Value(1001, 20)))); // smaller
        Assert.Equal(1, Alone(h, () => h.Put(TreeHarness.Key(9), TreeHarness.Value(1002, 200)))); // larger
        Assert.True(Alone(h, () => h.Put(TreeHarness.Key(10), TreeHarness.Value(1003, 20_000))) >= 1); // to overflow
        Assert.True(Alone(h, () => h.Put(TreeHarness.Key(10), TreeHarness.Value(1004, 30_000))) >= 1); // overflow to overflow
        Assert.Equal(1, Alone(h, () => h.Put(TreeHarness.Key(10), TreeHarness.Value(1005, 5)))); // back inline
        Assert.Equal(1, Alone(h, () => h.Delete(TreeHarness.Key(3))));
        h.CheckAll();
    }

    [Fact]
    public void An_insert_after_compaction_is_covered()
    {
        using var h = new TreeHarness();
        int i = 0;
        while (TreePage.ContiguousFree(h.Pages.GetPage(h.Tree.State.RootPage)) >= 7 + 4 + 300 + 2)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i++, 300));
        for (int j = 0; j < i; j += 4)
            Assert.Equal(1, Alone(h, () => h.Delete(TreeHarness.Key(j))));
        Assert.Equal(1, Alone(h, () => h.Put(TreeHarness.Key(10_000), TreeHarness.Value(1, 900))));
        Assert.Equal(1, h.Tree.State.LeafPages);
        h.CheckAll();
    }

    [Fact]
    public void Splits_in_the_middle_at_the_end_and_of_the_root_are_covered()
    {
        using var h = new TreeHarness();
        var random = new Random(11);
        var seenDepths = new HashSet<int>();
        long splits = 0;
        foreach (int k in Enumerable.Range(0, 3000).OrderBy(_ => random.Next()))
        {
            long leaves = h.Tree.State.LeafPages;
            Alone(h, () => h.Put(TreeHarness.Key(k), TreeHarness.Value(k, 30 + k % 200)));
            splits += h.Tree.State.LeafPages - leaves;
            seenDepths.Add(h.Tree.State.Depth);
        }
        Assert.True(splits > 50);
        Assert.Contains(2, seenDepths);
        for (int k = 3000; k < 3400; k++)
            Alone(h, () => h.Put(TreeHarness.Key(k), TreeHarness.Value(k, 100))); // appends at the right edge
        h.CheckAll();
    }

    [Fact]
    public void Branch_splits_and_branch_merges_are_covered()
    {
        using var h = new TreeHarness();
        var random = new Random(12);
        var order = Enumerable.Range(0, 200).OrderBy(_ => random.Next()).ToList();
        long branchSplits = 0;
        foreach (int i in order)
        {
            long branches = h.Tree.State.BranchPages;
            Alone(h, () => h.Put(TreeHarness.LongKey(i), [1]));
            branchSplits += Math.Max(0, h.Tree.State.BranchPages - branches);
        }
        Assert.True(h.Tree.State.Depth >= 3);
        Assert.True(branchSplits > 3);
        long merged = 0;
        foreach (int i in order.Take(190))
        {
            long branches = h.Tree.State.BranchPages;
            Alone(h, () => h.Delete(TreeHarness.LongKey(i)));
            merged += Math.Max(0, branches - h.Tree.State.BranchPages);
        }
        Assert.True(merged > 3);
        h.CheckAll();
    }

    [Fact]
    public void Leaf_merges_unlinks_and_root_collapses_are_covered()
    {
        using var h = new TreeHarness();
        for (int i = 59; i >= 0; i--)
            Alone(h, () => h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 400)));
        long leaves = h.Tree.State.LeafPages;
        foreach (byte[] key in h.Model.Keys.Where((_, index) => index % 5 != 0).ToList())
            Alone(h, () => h.Delete(key));
        Assert.True(h.Tree.State.LeafPages < leaves);
        h.CheckAll();

        // Ascending inserts leave full leaves: nothing merges until a leaf is empty, which is unlinked (the first
        // child's unlink rewrites the next child's key size in the parent).
        using var full = new TreeHarness();
        for (int i = 0; i < 60; i++)
            Alone(full, () => full.Put(TreeHarness.Key(i), TreeHarness.Value(i, 400)));
        leaves = full.Tree.State.LeafPages;
        for (int i = 0; i < 19; i++)
            Assert.True(Alone(full, () => full.Delete(TreeHarness.Key(i))) >= 1);
        Assert.Equal(leaves - 1, full.Tree.State.LeafPages);
        foreach (byte[] key in full.Model.Keys.ToList())
            Alone(full, () => full.Delete(key));
        Assert.Equal(1, full.Tree.State.Depth);
        full.CheckAll();
    }

    [Fact]
    public void Appends_with_their_splits_are_covered()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 2000; i++)
            Alone(h, () => h.Append(TreeHarness.Key(i), TreeHarness.Value(i, 10 + i % 300)));
        Assert.True(h.Tree.State.LeafPages > 20);
        h.CheckAll();
    }

    /// <summary>
    /// Random puts (inline and overflow, keys of every length class) and deletes, each committed alone: whatever path
    /// each takes, its ranges cover its change.
    /// </summary>
    [Fact]
    public void Random_changes_committed_one_by_one_are_covered()
    {
        using var h = new TreeHarness(4096);
        var random = new Random(13);
        var keys = new List<byte[]>();
        long checkedPages = 0;
        for (int step = 0; step < 3000; step++)
        {
            if (keys.Count > 0 && random.Next(3) == 0)
            {
                int index = random.Next(keys.Count);
                byte[] key = keys[index];
                keys[index] = keys[^1];
                keys.RemoveAt(keys.Count - 1);
                checkedPages += Alone(h, () => h.Delete(key));
                continue;
            }
            byte[] fresh = new byte[random.Next(3) == 0 ? random.Next(100, 600) : random.Next(1, 24)];
            random.NextBytes(fresh);
            byte[] target = keys.Count > 0 && random.Next(4) == 0 ? keys[random.Next(keys.Count)] : fresh;
            if (target == fresh && !h.Model.ContainsKey(fresh))
                keys.Add(fresh);
            int size = random.Next(20) == 0 ? random.Next(3000, 20_000) : random.Next(0, 400);
            checkedPages += Alone(h, () => h.Put(target, TreeHarness.Value(step, size)));
        }
        Assert.True(checkedPages > 2500);
        h.CheckAll();
    }
}
