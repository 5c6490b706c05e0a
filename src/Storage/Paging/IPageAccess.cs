namespace Cairn.Paging;

/// <summary>
/// How tree code reaches pages inside one transaction. Page numbers never change when a page is
/// modified: <see cref="ModifyPage"/> returns the transaction's private copy of the page under the
/// same number (copy-on-write into scratch memory), so parents only change when the tree's shape does.
/// Pointers stay valid until the transaction ends.
/// </summary>
internal unsafe interface IPageAccess
{
    /// <summary>Whether <see cref="ModifyPage"/>, <see cref="AllocatePages"/> and <see cref="FreePages"/> may be called.</summary>
    bool IsWritable { get; }

    /// <summary>
    /// The page (or the first page of an overflow run, with the whole run readable after it) as this
    /// transaction sees it: its own modified copy, the snapshot's committed version, or the data file.
    /// Throws <see cref="PageCorruptionException"/> if a page read from disk fails validation.
    /// </summary>
    byte* GetPage(long pageNumber);

    /// <summary>
    /// A writable copy of the page private to this transaction; the same page on every call for that page. Every
    /// write into it is recorded on it (<see cref="WritablePage.Wrote(byte*, int)"/>): the journal diffs only those bytes.
    /// </summary>
    WritablePage ModifyPage(long pageNumber);

    /// <summary>
    /// Allocates <paramref name="count"/> contiguous pages, zero-filled, with <see cref="PageHeader.PageNumber"/> set;
    /// the whole run is writable at the returned pointer.
    /// </summary>
    WritablePage AllocatePages(int count, out long pageNumber);

    /// <summary>Returns a page or run to free space; it becomes reusable once no reader can still see it.</summary>
    void FreePages(long pageNumber, int count);
}
