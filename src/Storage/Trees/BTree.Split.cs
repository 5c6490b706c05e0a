using System.Runtime.CompilerServices;
using Cairn.Paging;

namespace Cairn.Trees;

// Splitting a full page and pushing separators up, growing a new root when the old one splits.
internal sealed unsafe partial class BTree
{
    /// <summary>
    /// Inserts <paramref name="node"/> at <paramref name="index"/> of the page at <paramref name="level"/>,
    /// which has no room for it, splitting that page and as many ancestors as needed. Node sizes are
    /// read from the node headers, so only the bytes are passed.
    /// </summary>
    [SkipLocalsInit]
    private void InsertWithSplit(ref TreePath path, int level, int index, byte* node)
    {
        // Separators travel up as ready-made branch nodes; two buffers because splitting a branch
        // reads the incoming separator while writing the outgoing one.
        byte* spare = stackalloc byte[TreePage.MaxBranchNodeSize];
        byte* other = stackalloc byte[TreePage.MaxBranchNodeSize];
        bool childSplitAtInsert = false;
        while (true)
        {
            long pageNumber = path.Pages[level];
            WritablePage page = _pages.ModifyPage(pageNumber);
            bool leaf = level == path.LeafLevel;
            // An ascending run (this insert right after the previous one on the same leaf, or a separator from such
            // a split below) splits where the insert goes, so the pages it leaves behind are full instead of half
            // empty: at the page's end the new node starts the right page alone (an append); before other nodes it
            // ends the left page and those nodes move right, out of the run's way. Past the tree's last key it is
            // an append whatever came before. Every other split is the byte-balanced middle one.
            int count = TreePage.Count(page);
            bool ascending = leaf ? pageNumber == _lastInsertPage && index == _lastInsertIndex + 1 : childSplitAtInsert;
            int atInsert = index == count ? count : index + 1;
            bool splitAtInsert = (ascending || (index == count && IsRightmostPath(ref path, level)))
                && SplitFits(page, index, node, leaf, atInsert);
            int splitAt = splitAtInsert ? atInsert : ChooseSplitPoint(page, index, node, leaf);
            long rightPage = SplitPage(page, index, node, splitAt, spare, out int separatorSize);
            if (leaf)
            {
                _lastInsertPage = index < splitAt ? pageNumber : rightPage;
                _lastInsertIndex = index < splitAt ? index : index - splitAt;
            }
            childSplitAtInsert = splitAtInsert;
            if (level == 0)
            {
                GrowRoot(pageNumber, spare, separatorSize);
                return;
            }

            level--;
            index = path.Indices[level] + 1;
            node = spare;
            spare = other;
            other = node;

            WritablePage parent = _pages.ModifyPage(path.Pages[level]);
            if (TreePage.TryReserve(parent, separatorSize + sizeof(ushort)))
            {
                Buffer.MemoryCopy(node, TreePage.InsertSlot(parent, index, separatorSize), separatorSize, separatorSize);
                return;
            }
        }
    }

    /// <summary>Whether every page above <paramref name="level"/> on the path is its parent's last child.</summary>
    private bool IsRightmostPath(ref TreePath path, int level)
    {
        for (int l = 0; l < level; l++)
        {
            if (path.Indices[l] != TreePage.Count(_pages.GetPage(path.Pages[l])) - 1)
                return false;
        }
        return true;
    }

    /// <summary>
    /// Splits <paramref name="page"/> (already modified) into itself and a new right sibling, with the
    /// new node placed at <paramref name="index"/> of the combined sequence and the first <paramref name="splitAt"/>
    /// entries of it staying on the left. Writes the branch node that points at the right sibling, keyed by its
    /// first key, into <paramref name="separator"/>; returns the sibling's page number.
    /// </summary>
    [SkipLocalsInit]
    private long SplitPage(WritablePage page, int index, byte* node, int splitAt, byte* separator, out int separatorSize)
    {
        bool leaf = TreePage.IsLeaf(page);
        int count = TreePage.Count(page);
        WritablePage right = _pages.AllocatePages(1, out long rightPage);
        TreePage.Initialize(right, leaf ? PageFlags.Leaf : PageFlags.Branch);
        if (leaf)
            _state.LeafPages++;
        else
            _state.BranchPages++;
        if (splitAt == count && index == count)
        {
            // The left page keeps every node it has and is not rewritten: sequential loads pack pages
            // instead of leaving every one half empty, and copy nothing but the new node.
            StartWithOnly(right, node, leaf, separator, rightPage, out separatorSize);
            return rightPage;
        }

        int total = count + 1;

        byte* copy = stackalloc byte[StorageConstants.PageSize];
        Buffer.MemoryCopy(page.Bytes, copy, StorageConstants.PageSize, StorageConstants.PageSize);

        byte* first = Entry(copy, index, node, splitAt);
        ReadOnlySpan<byte> separatorKey = leaf ? TreePage.LeafKey(first) : TreePage.BranchKey(first);
        TreePage.WriteBranchNode(separator, separatorKey, rightPage);
        separatorSize = BranchNodeHeader.Size + separatorKey.Length;

        for (int j = splitAt; j < total; j++)
        {
            byte* entry = Entry(copy, index, node, j);
            if (!leaf && j == splitAt)
            {
                // Its key moved up as the separator; here it becomes the keyless first node.
                TreePage.WriteBranchNode(TreePage.AppendSlot(right, BranchNodeHeader.Size), default, ((BranchNodeHeader*)entry)->ChildPage);
                continue;
            }
            int size = leaf ? TreePage.LeafNodeSize(entry) : TreePage.BranchNodeSize(entry);
            Buffer.MemoryCopy(entry, TreePage.AppendSlot(right, size), size, size);
        }

        TreePage.Clear(page);
        for (int j = 0; j < splitAt; j++)
        {
            byte* entry = Entry(copy, index, node, j);
            int size = leaf ? TreePage.LeafNodeSize(entry) : TreePage.BranchNodeSize(entry);
            Buffer.MemoryCopy(entry, TreePage.AppendSlot(page, size), size, size);
        }
        return rightPage;
    }

    /// <summary>An append split's new page: the new node alone (keyless on a branch, its key moving up as the separator).</summary>
    private static void StartWithOnly(WritablePage right, byte* node, bool leaf, byte* separator, long rightPage, out int separatorSize)
    {
        ReadOnlySpan<byte> separatorKey = leaf ? TreePage.LeafKey(node) : TreePage.BranchKey(node);
        TreePage.WriteBranchNode(separator, separatorKey, rightPage);
        separatorSize = BranchNodeHeader.Size + separatorKey.Length;
        if (leaf)
        {
            int size = TreePage.LeafNodeSize(node);
            Buffer.MemoryCopy(node, TreePage.AppendSlot(right, size), size, size);
        }
        else
        {
            TreePage.WriteBranchNode(TreePage.AppendSlot(right, BranchNodeHeader.Size), default, ((BranchNodeHeader*)node)->ChildPage);
        }
    }

    /// <summary>Entry <paramref name="j"/> of the page's nodes with the new node inserted at <paramref name="index"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static byte* Entry(byte* page, int index, byte* node, int j) =>
        j < index ? TreePage.Node(page, j) : j == index ? node : TreePage.Node(page, j - 1);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int EntrySize(byte* page, int index, byte* node, int j, bool leaf)
    {
        byte* entry = Entry(page, index, node, j);
        return (leaf ? TreePage.LeafNodeSize(entry) : TreePage.BranchNodeSize(entry)) + sizeof(ushort);
    }

    /// <summary>Whether keeping the first <paramref name="splitAt"/> entries on the left leaves two non-empty halves that fit.</summary>
    private static bool SplitFits(byte* page, int index, byte* node, bool leaf, int splitAt)
    {
        int total = TreePage.Count(page) + 1;
        if (splitAt < 1 || splitAt >= total)
            return false;
        int left = 0;
        int right = 0;
        for (int j = 0; j < total; j++)
        {
            int size = EntrySize(page, index, node, j, leaf);
            if (j < splitAt)
                left += size;
            else
                right += !leaf && j == splitAt ? BranchNodeHeader.Size + sizeof(ushort) : size;
        }
        return left <= TreePage.UsableSpace && right <= TreePage.UsableSpace;
    }

    /// <summary>
    /// The number of entries that stay on the left: the split closest to equal byte halves such that
    /// both halves fit. On a branch the right half's first entry shrinks to a bare header because its
    /// key moves up. One always exists because no node exceeds a third of the page.
    /// </summary>
    private static int ChooseSplitPoint(byte* page, int index, byte* node, bool leaf)
    {
        int total = TreePage.Count(page) + 1;
        int bytes = 0;
        for (int j = 0; j < total; j++)
            bytes += EntrySize(page, index, node, j, leaf);

        int best = -1;
        int bestDifference = int.MaxValue;
        int left = 0;
        for (int k = 1; k < total; k++)
        {
            left += EntrySize(page, index, node, k - 1, leaf);
            if (left > TreePage.UsableSpace)
                break;
            int right = bytes - left;
            if (!leaf)
                right -= EntrySize(page, index, node, k, leaf) - (BranchNodeHeader.Size + sizeof(ushort));
            if (right > TreePage.UsableSpace)
                continue;
            int difference = Math.Abs(left - right);
            if (difference < bestDifference)
            {
                best = k;
                bestDifference = difference;
            }
        }
        if (best < 0)
            throw new InvalidOperationException($"No split of a {(leaf ? "leaf" : "branch")} page with {total} entries fits two pages.");
        return best;
    }

    /// <summary>The root split: a new root branch over the old root and its new sibling.</summary>
    private void GrowRoot(long oldRootPage, byte* separator, int separatorSize)
    {
        WritablePage root = _pages.AllocatePages(1, out long rootPage);
        TreePage.Initialize(root, PageFlags.Branch);
        TreePage.WriteBranchNode(TreePage.AppendSlot(root, BranchNodeHeader.Size), default, oldRootPage);
        Buffer.MemoryCopy(separator, TreePage.AppendSlot(root, separatorSize), separatorSize, separatorSize);
        _state.RootPage = rootPage;
        _state.Depth++;
        _state.BranchPages++;
    }
}
