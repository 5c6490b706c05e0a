using System.Diagnostics.CodeAnalysis;
using Cairn.Paging;

namespace Cairn.Trees;

internal sealed unsafe partial class BTree
{
    /// <summary>
    /// Walks the whole tree checking page structure, key order and bounds, leaf depth, overflow runs
    /// and the counts in <see cref="State"/>; throws <see cref="TreeCorruptionException"/> at the
    /// first violation. Every page used is reported to <paramref name="sink"/>.
    /// </summary>
    public void Verify(ITreeVerificationSink? sink = null) => new BTreeVerifier(_pages, _state, sink).Run();
}

/// <summary>One verification walk; allocates freely, it is not on any hot path.</summary>
internal sealed unsafe class BTreeVerifier(IPageAccess pages, TreeState state, ITreeVerificationSink? sink)
{
    private readonly HashSet<long> _seen = [];
    private readonly byte[] _previousKey = new byte[StorageConstants.MaxKeySize];
    private int _previousKeyLength = -1;
    private long _entries;
    private long _branchPages;
    private long _leafPages;
    private long _overflowPages;

    public void Run()
    {
        if (state.Depth < 1 || state.Depth > TreePath.MaxDepth)
            Fail(state.RootPage, $"the tree state's depth {state.Depth} is out of range");
        VerifyPage(state.RootPage, 1, false, default, false, default);
        Expect(_entries, state.EntryCount, "entries");
        Expect(_branchPages, state.BranchPages, "branch pages");
        Expect(_leafPages, state.LeafPages, "leaf pages");
        Expect(_overflowPages, state.OverflowPages, "overflow pages");
    }

    private void Expect(long found, long recorded, string what)
    {
        if (found != recorded)
            Fail(state.RootPage, $"the tree has {found} {what} but its state records {recorded}");
    }

    private void VerifyPage(long pageNumber, int depth, bool hasLower, ReadOnlySpan<byte> lower, bool hasUpper, ReadOnlySpan<byte> upper)
    {
        if (!_seen.Add(pageNumber))
            Fail(pageNumber, "the page is reached twice");
        byte* page = pages.GetPage(pageNumber);
        var header = (PageHeader*)page;
        if (header->PageNumber != pageNumber)
            Fail(pageNumber, $"its header says page {header->PageNumber}");

        bool isLeaf = depth == state.Depth;
        PageFlags expected = isLeaf ? PageFlags.Leaf : PageFlags.Branch;
        if (header->Flags != expected)
            Fail(pageNumber, $"at depth {depth} of {state.Depth} it should be a {expected} page but has flags {header->Flags}");
        sink?.OnPages(pageNumber, 1, isLeaf ? TreePageKind.Leaf : TreePageKind.Branch);

        int count = VerifyLayout(pageNumber, page, isLeaf);
        if (isLeaf)
        {
            _leafPages++;
            if (count == 0 && depth > 1)
                Fail(pageNumber, "an empty leaf that is not the root");
            VerifyLeaf(pageNumber, page, count, hasLower, lower, hasUpper, upper);
            return;
        }

        _branchPages++;
        bool isRoot = depth == 1;
        if (count < (isRoot ? 2 : 1))
            Fail(pageNumber, $"a {(isRoot ? "root " : "")}branch with {count} children");
        for (int i = 0; i < count; i++)
        {
            byte* node = TreePage.Node(page, i);
            var branch = (BranchNodeHeader*)node;
            if (branch->Flags != 0)
                Fail(pageNumber, $"branch node {i} has flags {branch->Flags}");
            ReadOnlySpan<byte> key = TreePage.BranchKey(node);
            if (i == 0)
            {
                if (key.Length != 0)
                    Fail(pageNumber, $"the first branch node has a {key.Length}-byte key instead of none");
                continue;
            }
            CheckKeySize(pageNumber, i, key.Length);
            if (hasLower && key.SequenceCompareTo(lower) <= 0)
                Fail(pageNumber, $"separator {i} is not above the page's lower bound");
            if (hasUpper && key.SequenceCompareTo(upper) >= 0)
                Fail(pageNumber, $"separator {i} is not below the page's upper bound");
            if (i > 1 && key.SequenceCompareTo(TreePage.BranchKey(TreePage.Node(page, i - 1))) <= 0)
                Fail(pageNumber, $"separator {i} is not above separator {i - 1}");
        }

        for (int i = 0; i < count; i++)
        {
            // The page is only read during verification, so these spans stay valid through the recursion.
            bool childHasLower = i > 0 || hasLower;
            ReadOnlySpan<byte> childLower = i > 0 ? TreePage.BranchKey(TreePage.Node(page, i)) : lower;
            bool childHasUpper = i + 1 < count || hasUpper;
            ReadOnlySpan<byte> childUpper = i + 1 < count ? TreePage.BranchKey(TreePage.Node(page, i + 1)) : upper;
            VerifyPage(TreePage.BranchChild(page, i), depth + 1, childHasLower, childLower, childHasUpper, childUpper);
        }
    }

    /// <summary>Checks Lower/Upper and that every slot points at a node inside the data area, with no two nodes overlapping.</summary>
    private static int VerifyLayout(long pageNumber, byte* page, bool isLeaf)
    {
        var header = (PageHeader*)page;
        int lowerEdge = header->Lower;
        int upperEdge = header->Upper;
        if (lowerEdge < PageHeader.Size || ((lowerEdge - PageHeader.Size) & 1) != 0 || lowerEdge > upperEdge || upperEdge > StorageConstants.PageSize)
            Fail(pageNumber, $"Lower {lowerEdge} / Upper {upperEdge} are inconsistent");

        int count = TreePage.Count(page);
        var extents = new (int Start, int End)[count];
        int headerSize = isLeaf ? LeafNodeHeader.Size : BranchNodeHeader.Size;
        for (int i = 0; i < count; i++)
        {
            int offset = TreePage.Slots(page)[i];
            if (offset < upperEdge || offset + headerSize > StorageConstants.PageSize)
                Fail(pageNumber, $"slot {i} points at {offset}, outside [Upper {upperEdge}, page end)");
            int size = isLeaf ? TreePage.LeafNodeSize(page + offset) : TreePage.BranchNodeSize(page + offset);
            if (size < headerSize || offset + size > StorageConstants.PageSize)
                Fail(pageNumber, $"node {i} at {offset} of {size} bytes runs past the page end");
            extents[i] = (offset, offset + size);
        }
        Array.Sort(extents);
        for (int i = 1; i < count; i++)
        {
            if (extents[i].Start < extents[i - 1].End)
                Fail(pageNumber, $"nodes at {extents[i - 1].Start} and {extents[i].Start} overlap");
        }
        return count;
    }

    private void VerifyLeaf(long pageNumber, byte* page, int count, bool hasLower, ReadOnlySpan<byte> lower, bool hasUpper, ReadOnlySpan<byte> upper)
    {
        for (int i = 0; i < count; i++)
        {
            byte* node = TreePage.Node(page, i);
            var leaf = (LeafNodeHeader*)node;
            ReadOnlySpan<byte> key = TreePage.LeafKey(node);
            CheckKeySize(pageNumber, i, key.Length);
            if (leaf->ValueSize < 0)
                Fail(pageNumber, $"leaf node {i} has a negative value size");
            bool needsOverflow = TreePage.NeedsOverflow(key.Length, leaf->ValueSize);
            if (leaf->Flags == LeafNodeFlags.Overflow)
            {
                if (!needsOverflow)
                    Fail(pageNumber, $"leaf node {i} keeps a {leaf->ValueSize}-byte value on overflow pages although it fits inline");
                VerifyOverflow(pageNumber, i, TreePage.OverflowPage(node), leaf->ValueSize);
            }
            else if (leaf->Flags != LeafNodeFlags.Inline)
                Fail(pageNumber, $"leaf node {i} has flags {leaf->Flags}");
            else if (needsOverflow)
                Fail(pageNumber, $"leaf node {i} keeps a {leaf->ValueSize}-byte value inline beyond the inline limit");

            if (hasLower && key.SequenceCompareTo(lower) < 0)
                Fail(pageNumber, $"key {i} is below the page's lower bound (its separator)");
            if (hasUpper && key.SequenceCompareTo(upper) >= 0)
                Fail(pageNumber, $"key {i} is not below the page's upper bound (the next separator)");
            if (_previousKeyLength >= 0 && key.SequenceCompareTo(_previousKey.AsSpan(0, _previousKeyLength)) <= 0)
                Fail(pageNumber, i == 0 ? "its first key is not above the previous leaf's last key" : $"key {i} is not above key {i - 1}");
            key.CopyTo(_previousKey);
            _previousKeyLength = key.Length;
            _entries++;
        }
    }

    private void VerifyOverflow(long leafPage, int index, long firstPage, int valueSize)
    {
        int count = BTree.OverflowPageCount(valueSize);
        for (long p = firstPage; p < firstPage + count; p++)
        {
            if (!_seen.Add(p))
                Fail(leafPage, $"the overflow run of node {index} (pages {firstPage}+{count}) includes page {p}, which is reached twice");
        }
        var header = (PageHeader*)pages.GetPage(firstPage);
        if (header->PageNumber != firstPage)
            Fail(firstPage, $"the overflow run of leaf {leafPage} node {index} says it is page {header->PageNumber}");
        if (header->Flags != PageFlags.Overflow)
            Fail(firstPage, $"the overflow run of leaf {leafPage} node {index} has flags {header->Flags}");
        if (header->OverflowSize != valueSize)
            Fail(firstPage, $"the overflow run holds {header->OverflowSize} bytes but leaf {leafPage} node {index} says {valueSize}");
        sink?.OnPages(firstPage, count, TreePageKind.Overflow);
        _overflowPages += count;
    }

    private static void CheckKeySize(long pageNumber, int index, int length)
    {
        if (length < 1 || length > StorageConstants.MaxKeySize)
            Fail(pageNumber, $"node {index} has a {length}-byte key");
    }

    [DoesNotReturn]
    private static void Fail(long pageNumber, string problem) => throw new TreeCorruptionException(pageNumber, problem);
}
