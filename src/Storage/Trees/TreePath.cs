using System.Runtime.CompilerServices;

namespace Cairn.Trees;

[InlineArray(TreePath.MaxDepth)]
internal struct PageNumberBuffer
{
    private long _element;
}

[InlineArray(TreePath.MaxDepth)]
internal struct SlotIndexBuffer
{
    private int _element;
}

/// <summary>
/// The pages from the root to a leaf and the slot taken on each: a fixed-size value so that
/// descending allocates nothing. Holds page numbers, never pointers, because a page's pointer changes
/// when the transaction first modifies it.
/// </summary>
internal struct TreePath
{
    /// <summary>
    /// Deeper than any tree can grow: even with two children per branch this is 2^63 leaves. A walk
    /// that gets deeper has met a cycle and reports corruption.
    /// </summary>
    public const int MaxDepth = 64;

    public PageNumberBuffer Pages;
    public SlotIndexBuffer Indices;
    public int Count;

    public readonly int LeafLevel => Count - 1;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Push(long pageNumber, int index)
    {
        if ((uint)Count >= MaxDepth)
            ThrowTooDeep(pageNumber);
        Pages[Count] = pageNumber;
        Indices[Count] = index;
        Count++;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowTooDeep(long pageNumber) =>
        throw new TreeCorruptionException(pageNumber, $"the tree is deeper than {MaxDepth} levels (a page cycle?)");
}
