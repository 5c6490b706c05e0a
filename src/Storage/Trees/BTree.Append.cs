using System.Runtime.CompilerServices;
using Cairn.Paging;

namespace Cairn.Trees;

// Appending at the right edge: keys in strictly increasing order, each above the tree's last key, with no
// search and no slot moves. Pages fill completely because a full right-edge page splits as an append.
internal sealed unsafe partial class BTree
{
    // The right edge as of the last append, reused while nothing else has changed the tree. A path is 780 bytes, so
    // it lives beside the tree, made by the first append: every other tree object (one per tree a transaction or
    // reader opens) stays small.
    private RightEdge? _rightEdge;

    private sealed class RightEdge
    {
        public TreePath Path;
        public long Version = -1;
    }

    /// <summary>
    /// Adds an entry whose key is above every key in the tree. Refuses any other key with
    /// <see cref="KeyOrderException"/> naming <paramref name="treeName"/> and both keys before changing anything.
    /// </summary>
    [SkipLocalsInit]
    public void Append(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, string treeName)
    {
        ValidateKey(key);
        EnsureWritable();
        var edge = _rightEdge ??= new RightEdge();
        if (edge.Version != Version)
            FindRightEdge(edge);
        int level = edge.Path.LeafLevel;
        long leafPage = edge.Path.Pages[level];
        byte* leaf = _pages.GetPage(leafPage);
        int count = TreePage.Count(leaf);
        if (count > 0)
        {
            ReadOnlySpan<byte> last = TreePage.LeafKey(TreePage.Node(leaf, count - 1));
            if (key.SequenceCompareTo(last) <= 0)
                throw new KeyOrderException(treeName, last.ToArray(), key.ToArray());
        }

        bool overflow = TreePage.NeedsOverflow(key.Length, value.Length);
        int nodeSize = TreePage.LeafNodeSize(key.Length, value.Length, overflow);
        WritablePage writable = _pages.ModifyPage(leafPage);
        long overflowPage = overflow ? WriteOverflow(value) : 0;
        _state.EntryCount++;
        if (TreePage.TryReserve(writable, nodeSize + sizeof(ushort)))
        {
            TreePage.WriteLeafNode(TreePage.AppendSlot(writable, nodeSize), key, value, overflowPage, overflow);
            _lastInsertPage = leafPage;
            _lastInsertIndex = count;
            MarkModified();
            edge.Version = Version;
            return;
        }
        // The right edge is the path InsertWithSplit wants: every page on it is its parent's last child, so the
        // split is an append at each level it reaches. The path changes; the next append finds it again.
        InsertLeafWithSplit(ref edge.Path, count, key, value, overflowPage, overflow);
        MarkModified();
    }

    /// <summary>The path from the root down the last child of every branch to the last leaf.</summary>
    private void FindRightEdge(RightEdge edge)
    {
        ref TreePath path = ref edge.Path;
        path.Count = 0;
        long pageNumber = _state.RootPage;
        byte* page = _pages.GetPage(pageNumber);
        while (TreePage.IsBranch(page))
        {
            int last = TreePage.Count(page) - 1;
            path.Push(pageNumber, last);
            pageNumber = TreePage.BranchChild(page, last);
            page = _pages.GetPage(pageNumber);
        }
        if (!TreePage.IsLeaf(page))
            ThrowNotTreePage(pageNumber, page);
        path.Push(pageNumber, TreePage.Count(page));
        edge.Version = Version;
    }
}
