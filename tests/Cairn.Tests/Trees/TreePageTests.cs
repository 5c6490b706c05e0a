using System.Runtime.CompilerServices;
using Cairn.Paging;
using Cairn.Trees;
using Cairn.Tests.Support;

namespace Cairn.Tests.Trees;

/// <summary>The node and page layout primitives.</summary>
public unsafe class TreePageTests
{
    [Fact]
    public void Node_headers_have_the_documented_sizes()
    {
        Assert.Equal(LeafNodeHeader.Size, Unsafe.SizeOf<LeafNodeHeader>());
        Assert.Equal(7, LeafNodeHeader.Size);
        Assert.Equal(BranchNodeHeader.Size, Unsafe.SizeOf<BranchNodeHeader>());
        Assert.Equal(11, BranchNodeHeader.Size);
        Assert.Equal(PageHeader.Size, Unsafe.SizeOf<PageHeader>());
    }

    [Fact]
    public void Leaf_node_bytes_are_at_the_documented_offsets()
    {
        byte* node = stackalloc byte[64];
        TreePage.WriteLeafNode(node, [1, 2, 3], [9, 8], 0, overflow: false);
        Assert.Equal(3, *(ushort*)node);
        Assert.Equal(LeafNodeFlags.Inline, node[2]);
        Assert.Equal(2, *(int*)(node + 3));
        Assert.Equal(new byte[] { 1, 2, 3, 9, 8 }, new ReadOnlySpan<byte>(node + 7, 5).ToArray());

        TreePage.WriteLeafNode(node, [1], new byte[5000], 0x0102030405060708, overflow: true);
        Assert.Equal(LeafNodeFlags.Overflow, node[2]);
        Assert.Equal(5000, *(int*)(node + 3));
        Assert.Equal(0x0102030405060708, *(long*)(node + 8));
        Assert.Equal(7 + 1 + 8, TreePage.LeafNodeSize(node));

        TreePage.WriteBranchNode(node, [5, 6], 77);
        Assert.Equal(2, *(ushort*)node);
        Assert.Equal(0, node[2]);
        Assert.Equal(77, *(long*)(node + 3));
        Assert.Equal(5, node[11]);
    }

    [Fact]
    public void Compaction_packs_nodes_against_the_page_end_and_keeps_slot_order()
    {
        byte* page = stackalloc byte[StorageConstants.PageSize];
        new Span<byte>(page, StorageConstants.PageSize).Clear();
        TreePage.Initialize(LoosePage.Of(page), PageFlags.Leaf);
        for (int i = 0; i < 20; i++)
        {
            byte[] key = TreeHarness.Key(i);
            byte[] value = TreeHarness.Value(i, 100 + i);
            int size = TreePage.LeafNodeSize(key.Length, value.Length, false);
            TreePage.WriteLeafNode(TreePage.InsertSlot(LoosePage.Of(page), i, size), key, value, 0, false);
        }
        for (int i = 18; i >= 0; i -= 2)
            TreePage.RemoveSlot(LoosePage.Of(page), i, TreePage.LeafNodeSize(TreePage.Node(page, i)));

        int used = TreePage.UsedBytes(page);
        Assert.True(TreePage.ContiguousFree(page) < TreePage.UsableSpace - used, "deleting from the middle leaves holes");
        TreePage.Compact(LoosePage.Of(page));
        Assert.Equal(TreePage.UsableSpace - used, TreePage.ContiguousFree(page));
        Assert.Equal(10, TreePage.Count(page));
        for (int i = 0; i < 10; i++)
        {
            byte* node = TreePage.Node(page, i);
            Assert.True(TreePage.LeafKey(node).SequenceEqual(TreeHarness.Key(2 * i + 1)));
            Assert.True(new ReadOnlySpan<byte>(TreePage.LeafValueStart(node), ((LeafNodeHeader*)node)->ValueSize)
                .SequenceEqual(TreeHarness.Value(2 * i + 1, 101 + 2 * i)));
        }
    }

    [Fact]
    public void Removing_the_lowest_node_gives_its_bytes_back_at_once()
    {
        byte* page = stackalloc byte[StorageConstants.PageSize];
        TreePage.Initialize(LoosePage.Of(page), PageFlags.Leaf);
        for (int i = 0; i < 3; i++)
            TreePage.WriteLeafNode(TreePage.InsertSlot(LoosePage.Of(page), i, 7 + 4 + 10), TreeHarness.Key(i), new byte[10], 0, false);
        int free = TreePage.ContiguousFree(page);
        TreePage.RemoveSlot(LoosePage.Of(page), 2, 21); // the last inserted node sits at Upper
        Assert.Equal(free + 21 + 2, TreePage.ContiguousFree(page));
    }

    [Fact]
    public void Searches_compare_keys_as_unsigned_bytes()
    {
        byte* page = stackalloc byte[StorageConstants.PageSize];
        TreePage.Initialize(LoosePage.Of(page), PageFlags.Leaf);
        byte[][] keys = [[0x00], [0x00, 0x00], [0x01], [0x7F], [0x80], [0xFF], [0xFF, 0x00]];
        for (int i = 0; i < keys.Length; i++)
            TreePage.WriteLeafNode(TreePage.InsertSlot(LoosePage.Of(page), i, 7 + keys[i].Length), keys[i], [], 0, false);
        for (int i = 0; i < keys.Length; i++)
        {
            Assert.Equal(i, TreePage.SearchLeaf(page, keys[i], out bool found));
            Assert.True(found);
        }
        Assert.Equal(5, TreePage.SearchLeaf(page, [0x80, 0x00], out bool between));
        Assert.False(between);
        Assert.Equal(keys.Length, TreePage.SearchLeaf(page, [0xFF, 0xFF], out _));
    }

    [Fact]
    public void Searches_order_keys_that_share_prefixes_across_the_8_byte_words_as_unsigned_bytes()
    {
        // Lengths around the 8-byte words the comparison reads, sharing long prefixes, with bytes that differ in
        // sign: a leaf and a branch page both find every key at its place in byte order and miss keys between.
        var random = new Random(20261126);
        var keys = new SortedSet<byte[]>(Comparer<byte[]>.Create((a, b) => a.AsSpan().SequenceCompareTo(b)));
        while (keys.Count < 120)
        {
            var key = new byte[random.Next(1, 26)];
            for (int i = 0; i < key.Length; i++)
                key[i] = random.Next(4) == 0 ? (byte)random.Next(256) : (byte)(i < 17 ? 0x7F : 0x80);
            keys.Add(key);
        }
        byte[][] sorted = [.. keys];
        byte* leaf = stackalloc byte[StorageConstants.PageSize];
        byte* branch = stackalloc byte[StorageConstants.PageSize];
        TreePage.Initialize(LoosePage.Of(leaf), PageFlags.Leaf);
        TreePage.Initialize(LoosePage.Of(branch), PageFlags.Branch);
        TreePage.WriteBranchNode(TreePage.AppendSlot(LoosePage.Of(branch), BranchNodeHeader.Size), default, 0);
        for (int i = 0; i < sorted.Length; i++)
        {
            TreePage.WriteLeafNode(TreePage.AppendSlot(LoosePage.Of(leaf), LeafNodeHeader.Size + sorted[i].Length), sorted[i], [], 0, false);
            TreePage.WriteBranchNode(TreePage.AppendSlot(LoosePage.Of(branch), BranchNodeHeader.Size + sorted[i].Length), sorted[i], i + 1);
        }
        for (int i = 0; i < sorted.Length; i++)
        {
            Assert.Equal(i, TreePage.SearchLeaf(leaf, sorted[i], out bool found));
            Assert.True(found);
            Assert.Equal(i + 1, TreePage.SearchBranch(branch, sorted[i]));
            byte[] longer = [.. sorted[i], 0x00]; // just after the key, before the next one
            int expected = i + 1;
            Assert.Equal(expected, TreePage.SearchLeaf(leaf, longer, out bool between));
            Assert.Equal(sorted.Length > expected && sorted[expected].AsSpan().SequenceEqual(longer), between);
            Assert.Equal(i + 1, TreePage.SearchBranch(branch, longer) - (between ? 1 : 0));
        }
    }
}
