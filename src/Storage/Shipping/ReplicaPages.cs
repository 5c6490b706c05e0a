using Cairn.FreeSpace;
using Cairn.Journal;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Shipping;

/// <summary>
/// Where a replica rebuilds one shipped transaction's page runs: fresh scratch copies, never the versions readers
/// see (copy-on-write, as a commit does), each starting from the run's current content when a diff record needs it
/// (the state's page version, else the data file's copy through the state's mapping; pages past the file read as
/// zeros, as in recovery). Unpublished runs are freed by <see cref="Dispose"/>.
/// </summary>
internal sealed unsafe class ReplicaPages(EnvironmentState state, ScratchAllocator scratch) : IJournalPageTarget, IFreeSpacePages, IDisposable
{
    private readonly Dictionary<long, (nint Pointer, int PageCount)> _runs = [];
    private bool _published;

    public byte* GetPageForWrite(long pageNumber, int pageCount, bool needsCurrentContent)
    {
        if (_runs.TryGetValue(pageNumber, out var existing))
        {
            if (existing.PageCount == pageCount)
                return (byte*)existing.Pointer;
            scratch.Free((byte*)existing.Pointer, existing.PageCount);
            _runs.Remove(pageNumber);
        }
        byte* run = scratch.Allocate(pageCount);
        if (needsCurrentContent)
            CopyCurrent(pageNumber, pageCount, run);
        else
            new Span<byte>(run, checked(pageCount * StorageConstants.PageSize)).Clear();
        _runs[pageNumber] = ((nint)run, pageCount);
        return run;
    }

    private void CopyCurrent(long pageNumber, int pageCount, byte* destination)
    {
        int copied = 0;
        if (state.Pages.TryGet(pageNumber, out var version))
        {
            copied = Math.Min(pageCount, version.PageCount);
            long bytes = (long)copied * StorageConstants.PageSize;
            Buffer.MemoryCopy((void*)version.Pointer, destination, bytes, bytes);
        }
        state.View.CopyPages(pageNumber + copied, pageCount - copied, destination + (long)copied * StorageConstants.PageSize);
    }

    /// <summary>
    /// The pages the transaction freed (their bitmap bits went from in use to free in the sections it rewrote), and takes
    /// out of the rebuilt runs any it wrote and freed itself: as a commit does, the published page table holds no version
    /// of a free page (the verifier and the flusher rely on it).
    /// </summary>
    public List<long> TakeFreed(long directoryPage)
    {
        var freed = new List<long>();
        byte* directory = GetPage(directoryPage);
        int sections = FreeSpaceMap.SectionCount(directory);
        for (int s = 0; s < sections; s++)
        {
            long sectionPage = FreeSpaceMap.SectionPage(directory, s);
            if (_runs.TryGetValue(sectionPage, out var rebuilt))
                FreedPageDiff.Add(CurrentPageOrNull(sectionPage), (byte*)rebuilt.Pointer, s, freed);
        }
        foreach (var (pageNumber, run) in _runs.ToList())
        {
            if (!FreeSpaceMap.IsMarkedFree(this, directoryPage, pageNumber))
                continue;
            scratch.Free((byte*)run.Pointer, run.PageCount);
            _runs.Remove(pageNumber);
            freed.Add(pageNumber);
        }
        return freed;
    }

    /// <summary>The page as the transaction leaves it: rebuilt here, else the state's version, else the data file's copy.</summary>
    public byte* GetPage(long pageNumber)
    {
        if (_runs.TryGetValue(pageNumber, out var run))
            return (byte*)run.Pointer;
        byte* current = CurrentPageOrNull(pageNumber);
        if (current is null)
            throw new PageCorruptionException("(replica)", pageNumber, 0, 0, "the shipped transaction's free-space map names a page past the end of the data file");
        return current;
    }

    private byte* CurrentPageOrNull(long pageNumber)
    {
        if (state.Pages.TryGet(pageNumber, out var version))
            return (byte*)version.Pointer;
        return pageNumber < state.View.PageCount ? state.View.Base + pageNumber * StorageConstants.PageSize : null;
    }

    byte* IFreeSpacePages.ModifyPage(long pageNumber) => throw new InvalidOperationException("A replica never changes its free-space map itself.");

    byte* IFreeSpacePages.CreatePages(long pageNumber, int count) => throw new InvalidOperationException("A replica never changes its free-space map itself.");

    /// <summary>Throws <see cref="PageCorruptionException"/> for the first rebuilt run whose page number or checksum is wrong.</summary>
    public void Validate(string dataFilePath)
    {
        foreach (var (pageNumber, run) in _runs)
            PageChecksum.Validate((byte*)run.Pointer, pageNumber, pageNumber + run.PageCount, dataFilePath);
    }

    /// <summary>The rebuilt runs as page versions of <paramref name="transactionId"/>, sorted by page number.</summary>
    public List<(long PageNumber, PageVersion Version)> Versions(long transactionId)
    {
        var versions = new List<(long, PageVersion)>(_runs.Count);
        foreach (var (pageNumber, run) in _runs)
            versions.Add((pageNumber, new PageVersion(run.Pointer, transactionId, run.PageCount)));
        versions.Sort((a, b) => a.Item1.CompareTo(b.Item1));
        return versions;
    }

    /// <summary>The runs now belong to the published state's page table.</summary>
    public void Published() => _published = true;

    public void Dispose()
    {
        if (!_published)
            foreach (var run in _runs.Values)
                scratch.Free((byte*)run.Pointer, run.PageCount);
        _runs.Clear();
    }
}
