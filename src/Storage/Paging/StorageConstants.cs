namespace Cairn.Paging;

/// <summary>Sizes that define the on-disk format; changing any of them changes the format version.</summary>
internal static class StorageConstants
{
    public const int PageSize = 8192;
    public const int PageShift = 13;

    /// <summary>Keys are at most this long, so every branch page holds at least three separators.</summary>
    public const int MaxKeySize = 2048;

    /// <summary>
    /// A leaf node (key, value and node header) larger than this stores its value on overflow pages,
    /// which keeps at least three nodes on every page and makes every split possible.
    /// </summary>
    public const int MaxInlineNodeSize = (PageSize - PageHeader.Size) / 3;
}
