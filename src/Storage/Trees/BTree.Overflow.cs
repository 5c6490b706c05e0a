using Cairn.Paging;

namespace Cairn.Trees;

// Values too large to keep three nodes on a page live in a run of contiguous pages of their own.
internal sealed unsafe partial class BTree
{
    /// <summary>Pages in the run that holds a value of <paramref name="valueSize"/> bytes after the page header.</summary>
    public static int OverflowPageCount(int valueSize) =>
        (int)(((long)PageHeader.Size + valueSize + StorageConstants.PageSize - 1) / StorageConstants.PageSize);

    private long WriteOverflow(ReadOnlySpan<byte> value)
    {
        int count = OverflowPageCount(value.Length);
        // A new run: diffed against zeros whole, so its writes need no record.
        byte* run = _pages.AllocatePages(count, out long firstPage);
        var header = (PageHeader*)run;
        header->Flags = PageFlags.Overflow;
        header->OverflowSize = value.Length;
        value.CopyTo(new Span<byte>(run + PageHeader.Size, value.Length));
        _state.OverflowPages += count;
        return firstPage;
    }

    private void FreeOverflow(byte* leafNode)
    {
        int count = OverflowPageCount(((LeafNodeHeader*)leafNode)->ValueSize);
        _pages.FreePages(TreePage.OverflowPage(leafNode), count);
        _state.OverflowPages -= count;
    }
}
