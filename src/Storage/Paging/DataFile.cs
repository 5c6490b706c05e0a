using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Cairn.Pal;

namespace Cairn.Paging;

/// <summary>
/// The data file: 8 KiB pages, read through a memory map, written only by the flusher through the
/// PAL's data-file writer, grown in adaptive steps. Pages 0 and 1 hold the two header copies.
/// </summary>
internal sealed unsafe class DataFile : IDisposable
{
    public const long HeaderPages = 2;
    private const long MinimumGrowthPages = 32;                         // 256 KiB: a new environment stays small
    private const long MaximumGrowthPages = (64L << 20) / StorageConstants.PageSize; // 64 MiB steps at most
    // A step is this fraction of the file: at most 1/8 of it allocated and unused, against remapping the file
    // once every 12.5 % of growth (doubling left up to half the file unused: 2x LMDB's size after a fill).
    private const int GrowthFractionShift = 3;

    private readonly PalFile _file;
    private readonly PageValidationMap _validated = new();

    private DataFile(string path, PalFile file, long pageCount, long trailingBytes = 0)
    {
        FilePath = path;
        _file = file;
        PageCount = pageCount;
        TrailingBytes = trailingBytes;
    }

    public string FilePath { get; }

    /// <summary>
    /// Bytes past the last whole page when the file was opened: what a crash during growth leaves (the
    /// size is not synced until a data sync, and may land part way). Nothing references them; the next
    /// growth covers them.
    /// </summary>
    public long TrailingBytes { get; }

    /// <summary>The file's size in pages (what the current view maps).</summary>
    public long PageCount { get; private set; }

    /// <summary>
    /// Opens and locks an existing data file, retrying the lock for up to <paramref name="lockWait"/>:
    /// a process killed while its io_uring worker had writes in flight keeps its file (and so its lock)
    /// until the kernel finishes tearing the ring down, a moment after the process is gone. A file too
    /// short to hold both header copies is refused: a data file only ever appears under its name complete
    /// (docs/decisions.md, reliability 4), so an empty one was truncated or is not ours. Bytes past the last
    /// whole page are left out of <see cref="PageCount"/> (see <see cref="TrailingBytes"/>).
    /// </summary>
    /// <param name="path">The data file.</param>
    /// <param name="lockWait">How long to retry the lock.</param>
    /// <param name="readOnly">
    /// Opened for reading only (a read-only environment): the same lock, taken on a read-only descriptor, so no write,
    /// growth or truncation can reach the file through it even by mistake.
    /// </param>
    public static DataFile Open(string path, TimeSpan lockWait, bool readOnly = false)
    {
        var file = PalFile.Open(path, readOnly ? PalOpenFlags.ReadOnly : PalOpenFlags.ReadWrite);
        try
        {
            LockWaiting(file, path, lockWait);
            long size = file.GetSize();
            if (size < HeaderPages * StorageConstants.PageSize)
                throw new StorageFormatException(path, size, size == 0
                    ? "the data file is empty (truncated, or not a Cairn data file: Cairn writes a new one completely before giving it this name)"
                    : $"the data file's {size} bytes cannot hold its two {StorageConstants.PageSize}-byte header pages (truncated, or not a Cairn data file)");
            return new DataFile(path, file, size / StorageConstants.PageSize, size % StorageConstants.PageSize);
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Opens (creating) and locks the temporary file a new data file is formatted in, emptied of whatever an
    /// interrupted creation left: the lock makes concurrent creators take turns.
    /// </summary>
    public static DataFile OpenForCreation(string temporaryPath, TimeSpan lockWait)
    {
        var file = PalFile.Open(temporaryPath, PalOpenFlags.Create);
        try
        {
            LockWaiting(file, temporaryPath, lockWait);
            return new DataFile(temporaryPath, file, 0);
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>Empties a file being created (a crashed creator's leftovers are never trusted).</summary>
    public void DiscardContents()
    {
        if (_file.GetSize() != 0)
            _file.SetSize(0);
        PageCount = 0;
    }

    private static void LockWaiting(PalFile file, string path, TimeSpan lockWait)
    {
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (true)
        {
            try
            {
                file.Lock();
                return;
            }
            catch (FileLockedException e)
            {
                if (waited.Elapsed >= lockWait)
                    throw new EnvironmentLockedException(Path.GetDirectoryName(path)!, e);
                Thread.Sleep(10);
            }
        }
    }

    public MappedView Map() => new(_file.Map(PageCount * StorageConstants.PageSize), PageCount);

    /// <summary>
    /// Grows the file so it holds at least <paramref name="requiredPages"/> pages: by an eighth of the current
    /// size, but at least 256 KiB and at most 64 MiB beyond what is required. Returns whether it grew.
    /// All or nothing: a failed growth sets the file back to its old size (a full disk may have granted
    /// part of it) and leaves <see cref="PageCount"/> as it was; a full disk is retried once with only the
    /// pages required, so a nearly full disk still takes the flush that needs them.
    /// </summary>
    public bool EnsureCapacity(long requiredPages)
    {
        if (requiredPages <= PageCount)
            return false;
        long step = Math.Clamp(PageCount >> GrowthFractionShift, MinimumGrowthPages, MaximumGrowthPages);
        long target = Math.Max(requiredPages, PageCount + step);
        try
        {
            GrowAllOrNothing(target);
        }
        catch (DiskFullException) when (target > requiredPages)
        {
            target = requiredPages;
            GrowAllOrNothing(target);
        }
        PageCount = target;
        return true;
    }

    private void GrowAllOrNothing(long pages)
    {
        try
        {
            _file.Allocate(0, pages * StorageConstants.PageSize);
        }
        catch (PalIOException)
        {
            TrySetBackSize();
            throw;
        }
    }

    /// <summary>
    /// Undoes what a failed growth granted. Failing to is harmless (open ignores bytes past the last whole
    /// page, and pages past <see cref="PageCount"/> are never referenced), so the growth's own error is the
    /// one reported.
    /// </summary>
    private void TrySetBackSize()
    {
        long size = PageCount * StorageConstants.PageSize;
        try
        {
            if (_file.GetSize() > size)
                _file.SetSize(size);
        }
        catch (PalIOException)
        {
        }
    }

    /// <summary>
    /// Cuts off <see cref="TrailingBytes"/>, once the headers have shown the file is ours: a size that is a
    /// whole number of pages again, so the next open has nothing to explain.
    /// </summary>
    public void DropTrailingBytes()
    {
        if (TrailingBytes != 0 && _file.GetSize() == PageCount * StorageConstants.PageSize + TrailingBytes)
            _file.SetSize(PageCount * StorageConstants.PageSize);
    }

    /// <summary>A page from the map, validated the first time it is touched after open.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public byte* GetPage(MappedView view, long pageNumber)
    {
        if ((ulong)pageNumber >= (ulong)view.PageCount)
            ThrowOutOfRange(pageNumber, view.PageCount);
        byte* page = view.Base + (pageNumber << StorageConstants.PageShift);
        if (!_validated.IsValidated(pageNumber))
            ValidateFirstTouch(page, pageNumber, view.PageCount);
        return page;
    }

    private void ValidateFirstTouch(byte* page, long pageNumber, long availablePages)
    {
        PageChecksum.Validate(page, pageNumber, availablePages, FilePath);
        _validated.MarkValidated(pageNumber, PageChecksum.RunLength(page));
    }

    /// <summary>Writes page runs (sorted by page number) and records them as validated: we wrote them.</summary>
    public void WritePages(ReadOnlySpan<PalWriteOp> runs)
    {
        _file.WriteGather(runs);
        foreach (ref readonly var run in runs)
            _validated.MarkValidated(run.Offset >> StorageConstants.PageShift, (int)(run.Length >> StorageConstants.PageShift));
    }

    /// <summary>
    /// Writes runs whose content is not final yet (recovery spilling half-replayed pages): they are not
    /// marked validated, because a later <see cref="ValidateWrittenRun"/> must check what they end up as.
    /// </summary>
    public void WritePagesUnvalidated(ReadOnlySpan<PalWriteOp> runs) => _file.WriteGather(runs);

    /// <summary>Validates a run this process wrote, through the map, and records it as validated.</summary>
    public void ValidateWrittenRun(MappedView view, long pageNumber, int pageCount)
    {
        if (pageNumber + pageCount > view.PageCount)
            ThrowOutOfRange(pageNumber + pageCount - 1, view.PageCount);
        PageChecksum.Validate(view.Base + (pageNumber << StorageConstants.PageShift), pageNumber, view.PageCount, FilePath);
        _validated.MarkValidated(pageNumber, pageCount);
    }

    /// <summary>fdatasync through the data-file writer (io_uring, at the writer's I/O priority).</summary>
    public void Sync() => _file.SyncGather();

    public FileHeader? ReadHeader(int slot)
    {
        var page = new byte[StorageConstants.PageSize];
        int read = _file.Read(page, slot * (long)StorageConstants.PageSize);
        if (read < FileHeader.Size)
            return null;
        return MemoryMarshal.Read<FileHeader>(page);
    }

    /// <summary>Writes one header copy and syncs, so the header never runs ahead of what it describes.</summary>
    public void WriteHeader(int slot, in FileHeader header)
    {
        var page = new byte[StorageConstants.PageSize];
        MemoryMarshal.Write(page, in header);
        _file.Write(page, slot * (long)StorageConstants.PageSize);
        _file.Sync();
    }

    public void Dispose() => _file.Dispose();

    private void ThrowOutOfRange(long pageNumber, long pageCount)
        => throw new PageCorruptionException(FilePath, pageNumber, 0, 0,
            $"a reference points past the end of the mapped file ({pageCount} pages)");
}
