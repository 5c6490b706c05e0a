namespace Cairn.Paging;

/// <summary>What a page holds. Stored in <see cref="PageHeader.Flags"/>.</summary>
[Flags]
internal enum PageFlags : ushort
{
    None = 0,
    Branch = 1 << 0,
    Leaf = 1 << 1,
    /// <summary>The first page of a run holding one large value; the run's length is <see cref="PageHeader.OverflowSize"/>.</summary>
    Overflow = 1 << 2,
    /// <summary>A section of the free-space bitmap.</summary>
    FreeSpaceBitmap = 1 << 3,
    /// <summary>The free-space directory: the page numbers of the bitmap sections.</summary>
    FreeSpaceDirectory = 1 << 4,
}
