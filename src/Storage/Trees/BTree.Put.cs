using System.Runtime.CompilerServices;
using Cairn.Paging;

namespace Cairn.Trees;

internal sealed unsafe partial class BTree
{
    /// <summary>
    /// Inserts or replaces. <paramref name="value"/> must not point into this tree's pages: the pages
    /// are rewritten while it is copied.
    /// </summary>
    [SkipLocalsInit]
    public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        ValidateKey(key);
        EnsureWritable();
        Unsafe.SkipInit(out TreePath path);
        int index = FindPath(key, ref path, out bool found);
        bool overflow = TreePage.NeedsOverflow(key.Length, value.Length);
        int nodeSize = TreePage.LeafNodeSize(key.Length, value.Length, overflow);
        WritablePage leaf = _pages.ModifyPage(path.Pages[path.LeafLevel]);

        if (found)
        {
            byte* old = TreePage.Node(leaf, index);
            int oldSize = TreePage.LeafNodeSize(old);
            if (TreePage.IsOverflow(old))
                FreeOverflow(old);
            if (oldSize == nodeSize)
            {
                // Same footprint: rewrite in place, the slot and page shape stay as they are.
                leaf.Wrote(old, oldSize);
                TreePage.WriteLeafNode(old, key, value, overflow ? WriteOverflow(value) : 0, overflow);
                MarkModified();
                return;
            }
            TreePage.RemoveSlot(leaf, index, oldSize);
        }
        else
        {
            _state.EntryCount++;
        }

        long overflowPage = overflow ? WriteOverflow(value) : 0;
        if (TreePage.TryReserve(leaf, nodeSize + sizeof(ushort)))
        {
            _lastInsertPage = path.Pages[path.LeafLevel];
            _lastInsertIndex = index;
            TreePage.WriteLeafNode(TreePage.InsertSlot(leaf, index, nodeSize), key, value, overflowPage, overflow);
        }
        else
        {
            InsertLeafWithSplit(ref path, index, key, value, overflowPage, overflow);
        }
        MarkModified();
    }

    [SkipLocalsInit]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void InsertLeafWithSplit(ref TreePath path, int index, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value,
        long overflowPage, bool overflow)
    {
        byte* node = stackalloc byte[TreePage.MaxLeafNodeSize];
        TreePage.WriteLeafNode(node, key, value, overflowPage, overflow);
        InsertWithSplit(ref path, path.LeafLevel, index, node);
    }
}
