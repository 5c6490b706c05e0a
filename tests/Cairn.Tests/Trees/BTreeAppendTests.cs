using Cairn.Paging;
using Cairn.Trees;

namespace Cairn.Tests.Trees;

/// <summary>
/// Ascending runs fill their pages (the split policy of BTree.Split.cs) wherever in the tree they run, and
/// <see cref="BTree.Append"/> loads keys at the right edge, refusing any key not above the tree's last one
/// before changing anything.
/// </summary>
public unsafe class BTreeAppendTests
{
    // 4-byte keys, 8-byte values: 7 + 4 + 8 = 19 bytes per node and 2 per slot, so a full leaf holds
    // (8192 - 32) / 21 = 388 entries. A run of n keys fills n / 388 leaves; a middle split leaves each about half full.
    private const int EntriesPerFullLeaf = TreePage.UsableSpace / (LeafNodeHeader.Size + 4 + 8 + sizeof(ushort));

    private const string TreeName = "appended";

    [Fact]
    public void An_ascending_run_before_the_last_key_fills_its_leaves()
    {
        using var h = new TreeHarness();
        h.Put(TreeHarness.Key(int.MaxValue), TreeHarness.Value(0, 8));
        for (int i = 0; i < 20_000; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 8));
        h.CheckAll();
        // Full leaves for the run, one more for the last key and one partly filled where the run ends.
        Assert.True(h.Tree.State.LeafPages <= 20_000 / EntriesPerFullLeaf + 2, $"{h.Tree.State.LeafPages} leaves");
    }

    [Fact]
    public void An_ascending_run_into_a_gap_between_full_leaves_fills_its_leaves()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 10_000; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 8));
        for (int i = 30_000; i < 40_000; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 8));
        long before = h.Tree.State.LeafPages;
        for (int i = 10_000; i < 30_000; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 8));
        h.CheckAll();
        // The run's own full leaves, one partly filled where it ends, and the leaf it started in (holding the end of
        // the first run and the start of the second), split once in the middle where the run met it.
        long added = h.Tree.State.LeafPages - before;
        Assert.True(added <= 20_000 / EntriesPerFullLeaf + 3, $"{added} leaves added for 20,000 keys");
    }

    [Fact]
    public void Random_inserts_still_split_in_the_middle()
    {
        using var h = new TreeHarness();
        var random = new Random(29);
        foreach (int i in Enumerable.Range(0, 20_000).OrderBy(_ => random.Next()))
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 8));
        h.CheckAll();
        // Byte-balanced middle splits leave this fill 0.805 full (seed 29, with and without the run rule); a policy
        // that split random inserts where they land would leave near-empty pages and fall well below 0.75.
        double fill = 20_000.0 / (h.Tree.State.LeafPages * EntriesPerFullLeaf);
        Assert.InRange(fill, 0.75, 0.9);
    }

    [Fact]
    public void Appends_build_full_leaves_in_an_empty_tree()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 20_000; i++)
            h.Append(TreeHarness.Key(i), TreeHarness.Value(i, 8));
        h.CheckAll();
        Assert.Equal((20_000 + EntriesPerFullLeaf - 1) / EntriesPerFullLeaf, h.Tree.State.LeafPages);
    }

    [Fact]
    public void Appends_of_the_longest_keys_and_overflow_values_build_deep_full_trees()
    {
        using var h = new TreeHarness(capacity: 4096);
        for (int i = 0; i < 400; i++)
        {
            var key = new byte[StorageConstants.MaxKeySize];
            TreeHarness.Key(i).CopyTo(key, 0);
            h.Append(key, TreeHarness.Value(i, i % 7 == 0 ? 20_000 : 100));
        }
        h.CheckAll();
        Assert.True(h.Tree.State.Depth >= 4, $"depth {h.Tree.State.Depth}");
    }

    [Fact]
    public void An_append_not_above_the_last_key_is_refused_and_changes_nothing()
    {
        using var h = new TreeHarness();
        for (int i = 10; i < 1000; i += 10)
            h.Append(TreeHarness.Key(i), TreeHarness.Value(i, 8));
        TreeState state = h.Tree.State;
        long version = h.Tree.Version;
        long pages = h.Pages.AllocatedPageCount;

        foreach (int refused in new[] { 990, 985, 0, 500 })
        {
            var error = Assert.Throws<KeyOrderException>(() => h.Tree.Append(TreeHarness.Key(refused), TreeHarness.Value(refused, 8), TreeName));
            Assert.Equal(TreeName, error.TreeName);
            Assert.Equal(TreeHarness.Key(990), error.LastKey.ToArray());
            Assert.Equal(TreeHarness.Key(refused), error.Key.ToArray());
            Assert.Contains($"'{TreeName}'", error.Message);
            Assert.Contains(Convert.ToHexString(TreeHarness.Key(refused)), error.Message);
            Assert.Contains(Convert.ToHexString(TreeHarness.Key(990)), error.Message);
        }
        Assert.Equal(state, h.Tree.State);
        Assert.Equal(version, h.Tree.Version);
        Assert.Equal(pages, h.Pages.AllocatedPageCount);
        h.CheckAll();

        // Still usable: the next key above the last is taken.
        h.Append(TreeHarness.Key(991), TreeHarness.Value(991, 8));
        h.CheckAll();
    }

    [Fact]
    public void Appends_continue_a_tree_filled_by_random_puts_and_see_its_later_changes()
    {
        using var h = new TreeHarness();
        var random = new Random(7);
        foreach (int i in Enumerable.Range(0, 5_000).OrderBy(_ => random.Next()))
            h.Put(TreeHarness.Key(i * 2), TreeHarness.Value(i, 8));
        Assert.Throws<KeyOrderException>(() => h.Tree.Append(TreeHarness.Key(9_998), [1], TreeName));
        for (int i = 10_000; i < 15_000; i++)
            h.Append(TreeHarness.Key(i), TreeHarness.Value(i, 8));

        // A put above the last key moves the right edge; a delete of the last key lowers it.
        h.Put(TreeHarness.Key(20_000), [2]);
        Assert.Throws<KeyOrderException>(() => h.Tree.Append(TreeHarness.Key(15_000), [3], TreeName));
        Assert.True(h.Delete(TreeHarness.Key(20_000)));
        h.Append(TreeHarness.Key(15_000), [3]);
        h.Pages.Commit();
        h.Append(TreeHarness.Key(15_001), [4]);
        h.CheckAll();
    }
}
