using System.Runtime.CompilerServices;
using Cairn.Journal;
using Cairn.Pal;
using Cairn.Paging;

namespace Cairn.Recovery;

/// <summary>
/// Where recovery rebuilds pages: the newest replayed version of every page run, in scratch memory,
/// starting from the data file's copy when a record patches it. When the cache outgrows its budget
/// everything in it is written to the data file (the journals stay until a sync covers them, so that
/// is as safe as any flush) and later records patch the written copies. At the end every rebuilt run
/// is validated, and what is still cached becomes the first state's page table.
/// </summary>
/// <remarks>
/// A page's intermediate versions during replay may be a mix of versions (when the flusher had
/// written a later version before the crash), so nothing is validated until the last entry is applied
/// (docs/on-disk-format.md, "Diff operations"). Runs never overlap in the cache: a record for a run
/// that covers cached pages replaces them, which is what the allocation that produced it did.
/// </remarks>
internal sealed unsafe class RecoveredPages : IJournalPageTarget, IDisposable
{
    private readonly DataFile _dataFile;
    private readonly ScratchAllocator _scratch;
    private readonly long _budgetBytes;
    // False for a read-only open: the budget is a limit then, not the point at which to spill.
    private readonly bool _mayWriteDataFile;
    // Every rebuilt run by its first page, and where it is (Pointer 0: written to the data file by a spill).
    private readonly PageRunMap _runs = new();
    private MappedView? _view;
    private long _cachedBytes;

    public RecoveredPages(DataFile dataFile, ScratchAllocator scratch, long budgetBytes, bool mayWriteDataFile = true)
    {
        _mayWriteDataFile = mayWriteDataFile;
        _dataFile = dataFile;
        _scratch = scratch;
        _budgetBytes = budgetBytes;
    }

    // Replaying reads the data-file copy of most pages it patches, scattered over the file; reading the
    // file ahead in one sweep beats faulting each of them in. Larger files are left to fault in.
    private const long MaxPrefetchBytes = 4L << 30;

    /// <summary>Starts reading the data file ahead (once), when there are entries to replay over it.</summary>
    public void PrefetchDataFile()
    {
        var view = CurrentView();
        if (!_prefetched && view.PageCount * StorageConstants.PageSize <= MaxPrefetchBytes)
            view.Prefetch();
        _prefetched = true;
    }

    private bool _prefetched;

    // Regions of the data file's mapping already populated for base-page copies (see CopyFromDataFile).
    private const int PopulateShift = 21; // 2 MiB
    private readonly HashSet<long> _populated = [];

    /// <summary>Distinct page runs rebuilt so far.</summary>
    public int RunCount => _runs.Count;

    /// <summary>Times the cache was written out to the data file.</summary>
    public int Spills { get; private set; }

    // Runs once per open, and is called for every page record of the replay: optimized from its first call.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public byte* GetPageForWrite(long pageNumber, int pageCount, bool needsCurrentContent)
    {
        if (_runs.TryGetRun(pageNumber, out nint existing, out int existingCount) && existingCount == pageCount && existing != 0)
            return (byte*)existing;
        if (_cachedBytes + (long)pageCount * StorageConstants.PageSize > _budgetBytes && _cachedBytes > 0)
        {
            if (!_mayWriteDataFile)
                throw new ReadOnlyOpenRefusedException(Path.GetDirectoryName(_dataFile.FilePath) ?? _dataFile.FilePath,
                    $"replaying its journals read-only needs more than {_budgetBytes} bytes of memory (StorageOptions.MaxScratchBytes) " +
                    "for the pages they rebuild; a writable open would write them to the data file instead");
            Spill();
        }
        Remove(pageNumber, pageCount);
        byte* run = _scratch.Allocate(pageCount);
        // Without a base the record overwrites (or zeroes) the whole run itself: nothing to clear here.
        if (needsCurrentContent)
            CopyFromDataFile(pageNumber, pageCount, run);
        _runs.Set(pageNumber, (nint)run, pageCount);
        _cachedBytes += (long)pageCount * StorageConstants.PageSize;
        return run;
    }

    /// <summary>
    /// Checks every rebuilt run's page number and checksum (in memory, or through the map for spilled
    /// ones), then hands the cached ones over as page versions of <paramref name="transactionId"/>.
    /// Throws <see cref="PageCorruptionException"/> for the first run that does not validate.
    /// </summary>
    public List<(long PageNumber, PageVersion Version)> Complete(long transactionId)
    {
        var runs = _runs.Runs(); // in page order, as the page table is built
        var versions = new List<(long, PageVersion)>(runs.Count);
        var view = CurrentView();
        foreach (var (pageNumber, pointer, pageCount) in runs)
        {
            if (pointer != 0)
            {
                PageChecksum.Validate((byte*)pointer, pageNumber, pageNumber + pageCount, _dataFile.FilePath);
                versions.Add((pageNumber, new PageVersion(pointer, transactionId, pageCount)));
            }
            else
            {
                // Spilled runs were written by this recovery; the data file (through the map) must hold them whole.
                _dataFile.ValidateWrittenRun(view, pageNumber, pageCount);
            }
        }
        // The page table owns the cached versions now.
        _runs.Clear();
        _cachedBytes = 0;
        return versions;
    }

    /// <summary>Writes every cached run to the data file and keeps only where they are.</summary>
    private void Spill()
    {
        var ops = new List<PalWriteOp>();
        long highest = 0;
        foreach (var (pageNumber, pointer, pageCount) in _runs.Runs())
        {
            if (pointer == 0)
                continue;
            ops.Add(new PalWriteOp((void*)pointer, pageNumber * StorageConstants.PageSize, (long)pageCount * StorageConstants.PageSize));
            highest = Math.Max(highest, pageNumber + pageCount);
        }
        _dataFile.EnsureCapacity(highest);
        _dataFile.WritePagesUnvalidated(ops.ToArray());
        foreach (var op in ops)
        {
            long pageNumber = op.Offset / StorageConstants.PageSize;
            int count = (int)(op.Length / StorageConstants.PageSize);
            _scratch.Free((byte*)op.Data, count);
            _runs.Set(pageNumber, 0, count);
        }
        _cachedBytes = 0;
        Spills++;
    }

    /// <summary>Drops whatever the cache holds for pages in [pageNumber, pageNumber + pageCount).</summary>
    private void Remove(long pageNumber, int pageCount)
    {
        for (long p = pageNumber; p < pageNumber + pageCount; p++)
        {
            long first = _runs.FirstPageOf(p);
            if (first < 0 || !_runs.Remove(first, out nint pointer, out int count))
                continue;
            if (pointer != 0)
            {
                _scratch.Free((byte*)pointer, count);
                _cachedBytes -= (long)count * StorageConstants.PageSize;
            }
        }
    }

    /// <summary>The run as the data file has it; pages past its end read as zeros (they were never flushed).</summary>
    private void CopyFromDataFile(long pageNumber, int pageCount, byte* destination)
    {
        var view = CurrentView();
        PopulateAround(view, pageNumber, pageCount);
        view.CopyPages(pageNumber, pageCount, destination);
    }

    /// <summary>
    /// Maps the 2 MiB regions holding the run in one call each, the first time one is touched: a replay
    /// copies pages from all over the file, and a fault per 4 KiB page (two per page copied) costs more
    /// than the copy itself. The cost stays in proportion to what the replay touches.
    /// </summary>
    private void PopulateAround(MappedView view, long pageNumber, int pageCount)
    {
        long fileBytes = view.PageCount * StorageConstants.PageSize;
        long first = pageNumber * StorageConstants.PageSize;
        long last = Math.Min((pageNumber + pageCount) * StorageConstants.PageSize, fileBytes) - 1;
        for (long region = first >> PopulateShift; region <= last >> PopulateShift && (region << PopulateShift) < fileBytes; region++)
        {
            if (!_populated.Add(region))
                continue;
            long offset = region << PopulateShift;
            view.Populate(offset, Math.Min(1L << PopulateShift, fileBytes - offset));
        }
    }

    private MappedView CurrentView()
    {
        if (_view is null || _view.PageCount != _dataFile.PageCount)
        {
            _view?.Dispose();
            _view = _dataFile.Map();
            _populated.Clear();
        }
        return _view;
    }

    /// <summary>Frees whatever is still cached (recovery failed, or <see cref="Complete"/> took it).</summary>
    public void Dispose()
    {
        foreach (var (_, pointer, pageCount) in _runs.Runs())
            if (pointer != 0)
                _scratch.Free((byte*)pointer, pageCount);
        _runs.Clear();
        _view?.Dispose();
        _view = null;
    }
}
