namespace Cairn.FreeSpace;

/// <summary>
/// What <see cref="FreeSpaceMap"/> needs from the transaction whose pages hold its bitmap: read a
/// page, take a private writable copy of one, and create a page at a number the map chose itself.
/// Narrower than <see cref="Paging.IPageAccess"/>, whose allocation goes through the map: the map
/// cannot allocate through the map, so it takes new section pages from the high-water mark and
/// asks only for memory under that number.
/// </summary>
internal unsafe interface IFreeSpacePages
{
    /// <summary>The page as the transaction sees it: its own copy if it has one, else the snapshot's.</summary>
    byte* GetPage(long pageNumber);

    /// <summary>A writable copy of the page private to the transaction; the same pointer on every call for that page.</summary>
    byte* ModifyPage(long pageNumber);

    /// <summary>Zeroed memory for <paramref name="count"/> new pages at a number the caller has already reserved.</summary>
    byte* CreatePages(long pageNumber, int count);
}
