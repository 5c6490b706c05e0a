using System.Runtime.CompilerServices;
using Cairn.Paging;

namespace Cairn.Trees;

// Deleting entries and merging pages that fall under a quarter full.
internal sealed unsafe partial class BTree
{
    /// <summary>A non-root page whose slots and nodes take fewer bytes than this is merged with a sibling if they fit together.</summary>
    public const int MergeThreshold = StorageConstants.PageSize / 4;

    [SkipLocalsInit]
    public bool Delete(ReadOnlySpan<byte> key)
    {
        ValidateKey(key);
        EnsureWritable();
        Unsafe.SkipInit(out TreePath path);
        int index = FindPath(key, ref path, out bool found);
        if (!found)
            return false;

        WritablePage leaf = _pages.ModifyPage(path.Pages[path.LeafLevel]);
        byte* node = TreePage.Node(leaf, index);
        if (TreePage.IsOverflow(node))
            FreeOverflow(node);
        TreePage.RemoveSlot(leaf, index, TreePage.LeafNodeSize(node));
        _state.EntryCount--;
        MarkModified();

        if (path.LeafLevel > 0 && TreePage.UsedBytes(leaf) < MergeThreshold)
            Rebalance(ref path, path.LeafLevel);
        return true;
    }

    /// <summary>
    /// Restores the page invariants bottom-up after the page at <paramref name="level"/> lost a node.
    /// An empty non-root page is unlinked from its parent. A page under <see cref="MergeThreshold"/> is
    /// merged with a sibling under the same parent when both fit in one page; otherwise it stays as it
    /// is (lookups only need pages to be reachable, not full). Either way the parent lost a node, so it
    /// is looked at next; at the root, a branch left with one child hands the root to that child.
    /// </summary>
    private void Rebalance(ref TreePath path, int level)
    {
        while (level > 0)
        {
            long pageNumber = path.Pages[level];
            byte* page = _pages.GetPage(pageNumber);
            int count = TreePage.Count(page);
            if (count > 0 && TreePage.UsedBytes(page) >= MergeThreshold)
                return;

            long parentNumber = path.Pages[level - 1];
            byte* parent = _pages.GetPage(parentNumber);
            int childIndex = path.Indices[level - 1];
            int siblings = TreePage.Count(parent);

            if (count == 0)
                Unlink(parentNumber, childIndex, pageNumber, TreePage.IsLeaf(page));
            else if (childIndex > 0 && CanMerge(parent, childIndex, TreePage.BranchChild(parent, childIndex - 1), pageNumber))
                MergeRightIntoLeft(parentNumber, childIndex, TreePage.BranchChild(parent, childIndex - 1), pageNumber);
            else if (childIndex + 1 < siblings && CanMerge(parent, childIndex + 1, pageNumber, TreePage.BranchChild(parent, childIndex + 1)))
                MergeRightIntoLeft(parentNumber, childIndex + 1, pageNumber, TreePage.BranchChild(parent, childIndex + 1));
            else
                return;

            level--;
        }
        CollapseRoot();
    }

    /// <summary>
    /// Removes an empty child from its parent and frees it. Needed besides merging because a page
    /// whose parent has no other child (left behind when a merge did not fit) has nothing to merge with.
    /// </summary>
    private void Unlink(long parentNumber, int childIndex, long childNumber, bool leaf)
    {
        WritablePage parent = _pages.ModifyPage(parentNumber);
        TreePage.RemoveSlot(parent, childIndex, TreePage.BranchNodeSize(TreePage.Node(parent, childIndex)));
        if (childIndex == 0 && TreePage.Count(parent) > 0)
        {
            // The next child now covers the removed one's (empty) range as well; its key bytes become a hole.
            var first = (BranchNodeHeader*)TreePage.Node(parent, 0);
            first->KeySize = 0;
            parent.Wrote((byte*)&first->KeySize, sizeof(ushort));
        }
        _pages.FreePages(childNumber, 1);
        if (leaf)
            _state.LeafPages--;
        else
            _state.BranchPages--;
    }

    /// <summary>
    /// Whether the right page's content fits after the left's. A branch merge also brings down the
    /// parent's separator for the right page, which becomes the key of the right's keyless first node.
    /// </summary>
    private bool CanMerge(byte* parent, int rightIndex, long leftNumber, long rightNumber)
    {
        byte* left = _pages.GetPage(leftNumber);
        byte* right = _pages.GetPage(rightNumber);
        int bytes = TreePage.UsedBytes(left) + TreePage.UsedBytes(right);
        if (TreePage.IsBranch(right))
            bytes += ((BranchNodeHeader*)TreePage.Node(parent, rightIndex))->KeySize;
        return bytes <= TreePage.UsableSpace;
    }

    /// <summary>Moves every node of the right page onto the left one, drops the right page's separator and frees it.</summary>
    private void MergeRightIntoLeft(long parentNumber, int rightIndex, long leftNumber, long rightNumber)
    {
        WritablePage left = _pages.ModifyPage(leftNumber);
        WritablePage parent = _pages.ModifyPage(parentNumber);
        byte* right = _pages.GetPage(rightNumber);
        bool leaf = TreePage.IsLeaf(right);
        byte* separatorNode = TreePage.Node(parent, rightIndex);
        int needed = TreePage.UsedBytes(right) + (leaf ? 0 : ((BranchNodeHeader*)separatorNode)->KeySize);
        if (!TreePage.TryReserve(left, needed))
            throw new InvalidOperationException($"Merging page {rightNumber} into {leftNumber} does not fit after all.");

        int count = TreePage.Count(right);
        for (int i = 0; i < count; i++)
        {
            byte* node = TreePage.Node(right, i);
            if (!leaf && i == 0)
            {
                ReadOnlySpan<byte> key = TreePage.BranchKey(separatorNode);
                TreePage.WriteBranchNode(TreePage.AppendSlot(left, BranchNodeHeader.Size + key.Length), key, ((BranchNodeHeader*)node)->ChildPage);
                continue;
            }
            int size = leaf ? TreePage.LeafNodeSize(node) : TreePage.BranchNodeSize(node);
            Buffer.MemoryCopy(node, TreePage.AppendSlot(left, size), size, size);
        }

        TreePage.RemoveSlot(parent, rightIndex, TreePage.BranchNodeSize(separatorNode));
        _pages.FreePages(rightNumber, 1);
        if (leaf)
            _state.LeafPages--;
        else
            _state.BranchPages--;
    }

    /// <summary>A branch root with a single child hands the root over to that child.</summary>
    private void CollapseRoot()
    {
        while (true)
        {
            byte* root = _pages.GetPage(_state.RootPage);
            if (!TreePage.IsBranch(root) || TreePage.Count(root) != 1)
                return;
            long child = TreePage.BranchChild(root, 0);
            _pages.FreePages(_state.RootPage, 1);
            _state.RootPage = child;
            _state.Depth--;
            _state.BranchPages--;
        }
    }

    /// <summary>Frees every page and overflow run of the tree; the instance must not be used afterwards.</summary>
    public void FreeAllPages()
    {
        EnsureWritable();
        FreeSubtree(_state.RootPage, 1);
        _state = default;
        MarkModified();
    }

    private void FreeSubtree(long pageNumber, int depth)
    {
        if (depth > TreePath.MaxDepth)
            ThrowCorrupt(pageNumber, $"the tree is deeper than {TreePath.MaxDepth} levels (a page cycle?)");
        byte* page = _pages.GetPage(pageNumber);
        int count = TreePage.Count(page);
        if (TreePage.IsBranch(page))
        {
            for (int i = 0; i < count; i++)
                FreeSubtree(TreePage.BranchChild(page, i), depth + 1);
        }
        else if (TreePage.IsLeaf(page))
        {
            for (int i = 0; i < count; i++)
            {
                byte* node = TreePage.Node(page, i);
                if (TreePage.IsOverflow(node))
                    _pages.FreePages(TreePage.OverflowPage(node), OverflowPageCount(((LeafNodeHeader*)node)->ValueSize));
            }
        }
        else
        {
            ThrowNotTreePage(pageNumber, page);
        }
        _pages.FreePages(pageNumber, 1);
    }
}
