using Cairn.Paging;
using Cairn.Trees;

namespace Cairn.Tests.Trees;

/// <summary>Point operations, splits, merges, overflow values and verification, each against a model.</summary>
public unsafe class BTreeTests
{
    private static readonly int MaxInlineValueFor4ByteKey = StorageConstants.MaxInlineNodeSize - LeafNodeHeader.Size - 4;

    [Fact]
    public void A_new_tree_is_one_empty_leaf()
    {
        using var h = new TreeHarness();
        TreeState state = h.Tree.State;
        Assert.Equal(1, state.Depth);
        Assert.Equal(1, state.LeafPages);
        Assert.Equal(0, state.BranchPages + state.OverflowPages + state.EntryCount);
        Assert.False(h.Tree.TryGet([1], out _));
        Assert.False(new BTreeCursor(h.Tree).First());
        Assert.False(h.Tree.IsModified);
        h.CheckAll();
    }

    [Fact]
    public void Put_get_replace_and_delete()
    {
        using var h = new TreeHarness();
        h.Put([1], [10]);
        h.Put([2], [20, 21]);
        Assert.True(h.Tree.IsModified);
        long version = h.Tree.Version;
        h.Put([1], [11]);      // same size: in place
        h.Put([2], [22]);      // smaller
        h.Put([1], new byte[300]); // larger
        Assert.Equal(version + 3, h.Tree.Version);
        Assert.True(h.Tree.TryGet([2], out var value));
        Assert.Equal(new byte[] { 22 }, value.ToArray());
        Assert.False(h.Tree.TryGet([3], out _));
        Assert.True(h.Delete([1]));
        Assert.False(h.Delete([1]));
        Assert.Equal(1, h.Tree.State.EntryCount);
        h.CheckAll();
    }

    [Fact]
    public void Keys_must_be_1_to_2048_bytes()
    {
        using var h = new TreeHarness();
        var cursor = new BTreeCursor(h.Tree);
        foreach (byte[] key in new[] { Array.Empty<byte>(), new byte[StorageConstants.MaxKeySize + 1] })
        {
            Assert.Throws<InvalidKeyException>(() => h.Tree.Put(key, [1]));
            Assert.Throws<InvalidKeyException>(() => h.Tree.TryGet(key, out _));
            Assert.Throws<InvalidKeyException>(() => h.Tree.Delete(key));
            Assert.Throws<InvalidKeyException>(() => cursor.Seek(key));
        }
        h.Put(new byte[StorageConstants.MaxKeySize], [1]);
        h.CheckAll();
    }

    [Fact]
    public void Sequential_inserts_fill_pages_completely()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 20_000; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 8));
        h.CheckAll();
        // 19 bytes per node + 2 per slot: 8160 / 21 = 388 entries per full leaf.
        Assert.True(h.Tree.State.LeafPages <= 20_000 / 388 + 1, $"{h.Tree.State.LeafPages} leaves");
    }

    [Fact]
    public void Random_inserts_and_deletes_down_to_an_empty_tree()
    {
        using var h = new TreeHarness();
        var random = new Random(7);
        int[] order = Enumerable.Range(0, 6000).OrderBy(_ => random.Next()).ToArray();
        foreach (int i in order)
            h.Put(TreeHarness.Key(i * 3), TreeHarness.Value(i, random.Next(0, 200)));
        h.CheckAll();
        Assert.True(h.Tree.State.Depth >= 2);

        int deleted = 0;
        foreach (int i in order.OrderBy(_ => random.Next()))
        {
            Assert.True(h.Delete(TreeHarness.Key(i * 3)));
            if (++deleted % 1000 == 0)
                h.CheckAll();
        }
        h.CheckAll();
        TreeState state = h.Tree.State;
        Assert.Equal(1, state.Depth);
        Assert.Equal(1, state.LeafPages);
        Assert.Equal(0, state.BranchPages);
        Assert.Equal(1, h.Pages.AllocatedPageCount);
    }

    /// <summary>A full leaf of mixed-size nodes, then one insert at each position in turn, each into a fresh tree.</summary>
    [Theory]
    [InlineData(40)]
    [InlineData(1200)]
    [InlineData(2720)]
    public void A_full_leaf_splits_correctly_at_every_insert_position(int newNodeSize)
    {
        int entries = FillOneLeaf(null);
        for (int position = 0; position <= entries; position++)
        {
            using var h = new TreeHarness();
            FillOneLeaf(h);
            Assert.Equal(1, h.Tree.State.Depth);
            // Keys are 10, 20, ...: 10 * position + 5 lands right before entry `position`.
            h.Put(TreeHarness.Key(10 * position + 5), TreeHarness.Value(position, newNodeSize - 7 - 4));
            Assert.Equal(2, h.Tree.State.Depth);
            h.CheckAll();
        }
    }

    /// <summary>Fills the root leaf with nodes of mixed sizes, then tiny ones, until not even a 13-byte node fits.</summary>
    private static int FillOneLeaf(TreeHarness? h)
    {
        int free = TreePage.UsableSpace;
        int i = 0;
        while (true)
        {
            int valueSize = free > 1000 ? (i % 3 == 0 ? 600 : 60 + i) : 0;
            int nodeSize = 7 + 4 + valueSize + 2;
            if (nodeSize > free)
                return i;
            h?.Put(TreeHarness.Key(10 * (i + 1)), TreeHarness.Value(i, valueSize));
            free -= nodeSize;
            i++;
        }
    }

    /// <summary>
    /// With 2048-byte keys a leaf holds three entries and a branch four children. Twelve sequential keys
    /// give a full root over four full leaves; one more key inside leaf p splits it, and the root
    /// splits with the new separator at position p + 1 (p = 4: past the end, the append split).
    /// </summary>
    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void A_full_branch_splits_correctly_at_every_insert_position(int leaf)
    {
        static byte[] LongKey(int i)
        {
            var key = new byte[StorageConstants.MaxKeySize];
            key.AsSpan().Fill((byte)'b');
            System.Buffers.Binary.BinaryPrimitives.WriteInt32BigEndian(key.AsSpan(StorageConstants.MaxKeySize - 4), i);
            return key;
        }

        using var h = new TreeHarness();
        for (int i = 0; i < 12; i++)
            h.Put(LongKey(i * 100), [(byte)i]);
        Assert.Equal(2, h.Tree.State.Depth);
        Assert.Equal(4, TreePage.Count(h.Pages.GetPage(h.Tree.State.RootPage)));
        Assert.Equal(4, h.Tree.State.LeafPages);

        h.Put(LongKey(leaf * 300 + 50), [99]);
        Assert.Equal(3, h.Tree.State.Depth);
        h.CheckAll();
    }

    [Fact]
    public void Maximum_size_keys_build_deep_trees_and_shrink_back()
    {
        using var h = new TreeHarness();
        var random = new Random(11);
        var keys = new List<byte[]>();
        for (int i = 0; i < 300; i++)
        {
            byte[] key = new byte[StorageConstants.MaxKeySize];
            key.AsSpan().Fill((byte)'k');
            BitConverter.TryWriteBytes(key.AsSpan(StorageConstants.MaxKeySize - 4), random.Next());
            keys.Add(key);
            h.Put(key, TreeHarness.Value(i, i % 5 == 0 ? 600 : 0));
        }
        h.CheckAll();
        Assert.True(h.Tree.State.Depth >= 4, $"depth {h.Tree.State.Depth}");
        foreach (byte[] key in keys.OrderBy(_ => random.Next()))
            h.Delete(key);
        h.CheckAll();
        Assert.Equal(1, h.Tree.State.Depth);
        Assert.Equal(1, h.Pages.AllocatedPageCount);
    }

    [Fact]
    public void Values_move_to_overflow_pages_just_past_the_inline_limit()
    {
        using var h = new TreeHarness();
        h.Put(TreeHarness.Key(1), TreeHarness.Value(1, MaxInlineValueFor4ByteKey));
        Assert.Equal(0, h.Tree.State.OverflowPages);
        h.Put(TreeHarness.Key(2), TreeHarness.Value(2, MaxInlineValueFor4ByteKey + 1));
        Assert.Equal(1, h.Tree.State.OverflowPages);
        h.CheckAll();
    }

    [Theory]
    [InlineData(2710, 1)]
    [InlineData(StorageConstants.PageSize - PageHeader.Size, 1)]
    [InlineData(StorageConstants.PageSize - PageHeader.Size + 1, 2)]
    [InlineData(100_000, 13)]
    [InlineData(1 << 20, 129)]
    [InlineData(5 << 20, 641)]
    public void Overflow_runs_have_the_right_length_and_are_freed_on_replace_and_delete(int size, int pages)
    {
        using var h = new TreeHarness();
        h.Put(TreeHarness.Key(0), [1, 2, 3]);
        h.Put(TreeHarness.Key(1), TreeHarness.Value(3, size));
        Assert.Equal(pages, h.Tree.State.OverflowPages);
        h.CheckAll();
        h.Pages.Commit();

        h.Put(TreeHarness.Key(1), TreeHarness.Value(4, size)); // replaced by a new run of the same length
        Assert.Equal(pages, h.Tree.State.OverflowPages);
        h.CheckAll();
        h.Put(TreeHarness.Key(1), TreeHarness.Value(5, 10)); // back inline
        Assert.Equal(0, h.Tree.State.OverflowPages);
        h.CheckAll();
        h.Put(TreeHarness.Key(1), TreeHarness.Value(6, size));
        h.Pages.Commit();
        h.Delete(TreeHarness.Key(1));
        Assert.Equal(0, h.Tree.State.OverflowPages);
        h.CheckAll();
        Assert.Equal(1, h.Pages.AllocatedPageCount);
    }

    [Fact]
    public void An_insert_that_fits_only_after_compaction_does_not_split()
    {
        using var h = new TreeHarness();
        int i = 0;
        while (TreePage.ContiguousFree(h.Pages.GetPage(h.Tree.State.RootPage)) >= 7 + 4 + 300 + 2)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i++, 300));
        for (int j = 0; j < i; j += 4)
            h.Delete(TreeHarness.Key(j));
        byte* root = h.Pages.GetPage(h.Tree.State.RootPage);
        Assert.True(TreePage.ContiguousFree(root) < 7 + 4 + 900 + 2);
        h.Put(TreeHarness.Key(10_000), TreeHarness.Value(1, 900));
        Assert.Equal(1, h.Tree.State.Depth);
        Assert.Equal(1, h.Tree.State.LeafPages);
        h.CheckAll();
    }

    [Fact]
    public void Deleting_most_of_a_leaf_merges_it_with_a_sibling_and_collapses_the_root()
    {
        using var h = new TreeHarness();
        // Descending inserts split in the middle, leaving half-full leaves that can take a neighbour.
        for (int i = 59; i >= 0; i--)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 400));
        Assert.Equal(2, h.Tree.State.Depth);
        long leaves = h.Tree.State.LeafPages;
        Assert.True(leaves >= 4);

        // Delete all but one key of the root's second child: it falls under a quarter and merges.
        byte* leaf = h.Pages.GetPage(TreePage.BranchChild(h.Pages.GetPage(h.Tree.State.RootPage), 1));
        var keys = new List<byte[]>();
        for (int i = 1; i < TreePage.Count(leaf); i++)
            keys.Add(TreePage.LeafKey(TreePage.Node(leaf, i)).ToArray());
        foreach (byte[] key in keys)
            h.Delete(key);
        h.CheckAll();
        Assert.Equal(leaves - 1, h.Tree.State.LeafPages);

        foreach (byte[] key in h.Model.Keys.Skip(2).ToList())
            h.Delete(key);
        h.CheckAll();
        Assert.Equal(1, h.Tree.State.Depth);
        Assert.Equal(0, h.Tree.State.BranchPages);
        Assert.Equal(1, h.Pages.AllocatedPageCount);
    }

    [Fact]
    public void Emptied_leaves_are_unlinked_even_next_to_full_siblings()
    {
        using var h = new TreeHarness();
        // Ascending inserts leave full leaves, so nothing merges until a leaf is empty.
        for (int i = 0; i < 60; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 400));
        long leaves = h.Tree.State.LeafPages;
        for (int i = 0; i < 19; i++)
            h.Delete(TreeHarness.Key(i));
        h.CheckAll();
        Assert.Equal(leaves - 1, h.Tree.State.LeafPages);
    }

    [Fact]
    public void Branch_pages_merge_when_their_children_merge()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 200; i++)
            h.Put(TreeHarness.LongKey(i), [1]);
        h.CheckAll();
        int depth = h.Tree.State.Depth;
        long branches = h.Tree.State.BranchPages;
        Assert.True(depth >= 3);
        for (int i = 0; i < 190; i++)
            h.Delete(TreeHarness.LongKey(i));
        h.CheckAll();
        Assert.True(h.Tree.State.BranchPages < branches);
        Assert.True(h.Tree.State.Depth < depth);
    }

    [Fact]
    public void FreeAllPages_returns_every_page()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 3000; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, i % 100 == 0 ? 20_000 : 50));
        h.Pages.Commit();
        Assert.True(h.Pages.AllocatedPageCount > 50);
        h.Tree.FreeAllPages();
        Assert.Equal(0, h.Pages.AllocatedPageCount);
        h.Pages.Commit();
    }

    [Fact]
    public void Works_across_commits_without_writing_committed_pages()
    {
        using var h = new TreeHarness();
        var random = new Random(3);
        for (int round = 0; round < 20; round++)
        {
            for (int i = 0; i < 300; i++)
            {
                int k = random.Next(3000);
                if (random.Next(3) == 0)
                    h.Delete(TreeHarness.Key(k));
                else
                    h.Put(TreeHarness.Key(k), TreeHarness.Value(k, random.Next(0, 3000)));
            }
            h.Pages.Commit(); // throws if a committed page was written in place
            h.CheckAll();
        }
    }

    [Fact]
    public void Reads_need_no_writable_pages_and_writes_refuse_read_only_pages()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 1000; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 30));
        h.Pages.Commit();
        h.Pages.IsWritable = false;
        h.CheckAll();
        Assert.Throws<ReadOnlyTransactionException>(() => h.Tree.Put([1], [1]));
        Assert.Throws<ReadOnlyTransactionException>(() => h.Tree.Delete([1]));
    }

    [Fact]
    public void Verify_reports_a_misordered_page()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 2000; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 10));
        h.CheckAll();
        // Swap the first two slots of the root's second child.
        long leaf = TreePage.BranchChild(h.Pages.GetPage(h.Tree.State.RootPage), 1);
        ushort* slots = TreePage.Slots(h.Pages.ModifyPage(leaf));
        (slots[0], slots[1]) = (slots[1], slots[0]);
        var error = Assert.Throws<TreeCorruptionException>(() => h.Tree.Verify());
        Assert.Equal(leaf, error.PageNumber);
        Assert.Contains("key 1 is not above key 0", error.Message);
    }

    [Fact]
    public void Verify_reports_broken_layout_and_counts()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 10; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 10));
        byte* root = h.Pages.ModifyPage(h.Tree.State.RootPage);
        ushort upper = ((PageHeader*)root)->Upper;
        ((PageHeader*)root)->Upper = (ushort)(upper + 1);
        Assert.Contains("outside [Upper", Assert.Throws<TreeCorruptionException>(() => h.Tree.Verify()).Message);
        ((PageHeader*)root)->Upper = upper;

        TreeState state = h.Tree.State;
        state.EntryCount++;
        Assert.Contains("10 entries but its state records 11", Assert.Throws<TreeCorruptionException>(() => new BTree(h.Pages, state).Verify()).Message);
    }

    [Fact]
    public void Lookups_report_a_page_that_is_not_a_tree_page()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 1000; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 10));
        long leaf = TreePage.BranchChild(h.Pages.GetPage(h.Tree.State.RootPage), 0);
        ((PageHeader*)h.Pages.ModifyPage(leaf).Bytes)->Flags = PageFlags.FreeSpaceBitmap;
        var error = Assert.Throws<TreeCorruptionException>(() => h.Tree.TryGet(TreeHarness.Key(0), out _));
        Assert.Equal(leaf, error.PageNumber);
        Assert.Throws<TreeCorruptionException>(() => new BTreeCursor(h.Tree).First());
        Assert.Throws<TreeCorruptionException>(() => h.Tree.Put(TreeHarness.Key(0), [1]));
        Assert.Throws<TreeCorruptionException>(() => h.Tree.Verify());
    }

    [Fact]
    public void A_page_cycle_is_reported_instead_of_looping()
    {
        using var h = new TreeHarness();
        for (int i = 0; i < 1000; i++)
            h.Put(TreeHarness.Key(i), TreeHarness.Value(i, 10));
        long root = h.Tree.State.RootPage;
        byte* page = h.Pages.ModifyPage(root);
        ((BranchNodeHeader*)TreePage.Node(page, 0))->ChildPage = root;
        Assert.Contains("deeper than", Assert.Throws<TreeCorruptionException>(() => h.Tree.TryGet(TreeHarness.Key(0), out _)).Message);
        Assert.Contains("deeper than", Assert.Throws<TreeCorruptionException>(() => h.Tree.Delete(TreeHarness.Key(0))).Message);
        Assert.Throws<TreeCorruptionException>(() => h.Tree.Verify());
    }
}
