using Cairn.FreeSpace;
using Cairn.Paging;

namespace Cairn.Recovery;

/// <summary>
/// Takes out of the recovered page table the runs that replayed transactions wrote and later replayed
/// transactions freed.
/// </summary>
/// <remarks>
/// A journal entry carries the pages its transaction wrote, not the ones it freed (those show only in
/// the free-space bitmap pages it carries), so replay ends with the newest version of every run any
/// replayed transaction wrote, freed ones included. Left in the first state's page table, such a run
/// is a live version of free pages: the allocator hands the pages out again, in other shapes, and the
/// table then holds overlapping runs, which the flusher writes as overlapping ranges (EINVAL, and the
/// environment latched: issue 11). A commit removes the runs it frees from the page table; this does
/// the same for the replayed ones, once the recovered free-space map says which they are. A run that is
/// partly free cannot come from any sequence of commits (allocating any page of a freed run replaces the
/// run in replay too), so it is reported as damage.
/// </remarks>
internal static unsafe class FreedRecoveredRuns
{
    /// <summary>
    /// Returns <paramref name="pages"/> without the runs whose pages <paramref name="freeSpace"/> (loaded from
    /// the recovered state) marks free, and frees their scratch memory; <paramref name="dropped"/> counts them.
    /// Nothing is changed when it throws.
    /// </summary>
    /// <exception cref="StorageFormatException">A run is partly free: the journals or the free-space map are damaged.</exception>
    public static PageTable Drop(PageTable pages, FreeSpaceMap freeSpace, ScratchAllocator scratch, string dataFilePath, out int dropped)
    {
        var freed = new List<(long PageNumber, PageVersion Version)>();
        foreach (var (pageNumber, version) in pages)
        {
            int free = 0;
            for (long page = pageNumber; page < pageNumber + version.PageCount; page++)
                if (freeSpace.IsAvailable(page))
                    free++;
            if (free == version.PageCount)
                freed.Add((pageNumber, version));
            else if (free != 0)
                throw new StorageFormatException(dataFilePath, pageNumber * StorageConstants.PageSize,
                    $"recovery rebuilt a run of {version.PageCount} pages at page {pageNumber} (transaction {version.TransactionId}) " +
                    $"of which the recovered free-space map marks {free} free and the rest in use (a damaged journal or free-space map)");
        }
        dropped = freed.Count;
        if (freed.Count == 0)
            return pages;
        var builder = pages.ToBuilder();
        foreach (var (pageNumber, _) in freed)
            builder.Remove(pageNumber);
        var remaining = builder.ToImmutable();
        foreach (var (_, version) in freed)
            scratch.Free((byte*)version.Pointer, version.PageCount);
        return remaining;
    }
}
