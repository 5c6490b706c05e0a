namespace Cairn.Paging;

/// <summary>
/// The newest committed copy of a page (or overflow run) that is not in the data file yet: where it
/// lives in scratch memory, which transaction wrote it, and how many pages the run spans.
/// </summary>
internal readonly record struct PageVersion(nint Pointer, long TransactionId, int PageCount);

/// <summary>One entry of a <see cref="PageTable"/>, as its enumerators yield them.</summary>
internal readonly record struct PageTableEntry(long PageNumber, PageVersion Version);
