using System.Runtime.CompilerServices;

namespace Cairn.Trees;

// Appending at the right edge: keys in strictly increasing order, each above the tree's last key, with no
// search and no slot moves. Pages fill completely because a full right-edge page splits as an append.
internal sealed unsafe partial class BTree
{
    // The right edge as of the last append, reused while nothing else has changed the tree.
    private TreePath _rightEdge;
    private long _rightEdgeVersion = -1;

    /// <summary>
    /// Adds an entry whose key is above every key in the tree. Refuses any other key with
    /// <see cref="KeyOrderException"/> naming <paramref name="treeName"/> and both keys before changing anything.
    /// </summary>
    [SkipLocalsInit]
    public void Append(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, string treeName)
    {
        ValidateKey(key);
        EnsureWritable();
        if (_rightEdgeVersion != Version)
            FindRightEdge();
        int level = _rightEdge.LeafLevel;
        long leafPage = _rightEdge.Pages[level];
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
        leaf = _pages.ModifyPage(leafPage);
        long overflowPage = overflow ? WriteOverflow(value) : 0;
        _state.EntryCount++;
        if (TreePage.TryReserve(leaf, nodeSize + sizeof(ushort)))
        {
            TreePage.WriteLeafNode(TreePage.AppendSlot(leaf, nodeSize), key, value, overflowPage, overflow);
            _lastInsertPage = leafPage;
            _lastInsertIndex = count;
            MarkModified();
            _rightEdgeVersion = Version;
            return;
        }
        // The right edge is the path InsertWithSplit wants: every page on it is its parent's last child, so the
        // split is an append at each level it reaches. The path changes; the next append finds it again.
        InsertLeafWithSplit(ref _rightEdge, count, key, value, overflowPage, overflow);
        MarkModified();
    }

    /// <summary>The path from the root down the last child of every branch to the last leaf.</summary>
    private void FindRightEdge()
    {
        _rightEdge.Count = 0;
        long pageNumber = _state.RootPage;
        byte* page = _pages.GetPage(pageNumber);
        while (TreePage.IsBranch(page))
        {
            int last = TreePage.Count(page) - 1;
            _rightEdge.Push(pageNumber, last);
            pageNumber = TreePage.BranchChild(page, last);
            page = _pages.GetPage(pageNumber);
        }
        if (!TreePage.IsLeaf(page))
            ThrowNotTreePage(pageNumber, page);
        _rightEdge.Push(pageNumber, TreePage.Count(page));
        _rightEdgeVersion = Version;
    }
}
