using Cairn.Pal;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Flushing;

/// <summary>
/// Moves committed page versions from scratch memory to the data file. The caller picks a state that
/// every live reader has reached (the oldest reader's), so no reader can still need the data-file copy
/// a version replaces; of that state's page table only versions newer than the last flush are written
/// (older ones are already in the file). Pages are validated, sorted, and handed to the PAL's
/// data-file writer as one batch, which merges adjacent ones into vectored writes.
/// </summary>
internal sealed unsafe class DataFileFlusher(DataFile dataFile)
{
    private readonly List<(long PageNumber, PageVersion Version)> _batch = [];
    private PalWriteOp[] _ops = new PalWriteOp[256];

    /// <summary>What the last <see cref="Flush"/> wrote.</summary>
    public readonly record struct FlushStats(int Runs, long Bytes, long LowestTransaction, long HighestTransaction);

    public FlushStats LastFlush { get; private set; }

    /// <summary>
    /// Writes every version of <paramref name="state"/> with a transaction id above <paramref name="flushedUpTo"/> whose
    /// run starts in <paramref name="step"/>'s page range (<see cref="FlushStep.Whole"/>: all of them), grows the file
    /// first to cover them and the step's high-water mark, and returns the versions written (the caller removes them from
    /// the current page table and retires them). A full disk throws <see cref="DiskFullException"/> saying how many bytes
    /// the growth needed and how many were free, before anything is written.
    /// </summary>
    public List<(long PageNumber, PageVersion Version)> Flush(EnvironmentState state, long flushedUpTo, FlushStep step)
    {
        _batch.Clear();
        foreach (var (pageNumber, version) in state.Pages)
        {
            if (version.TransactionId > flushedUpTo && pageNumber >= step.FromPage && pageNumber < step.BelowPage)
                _batch.Add((pageNumber, version));
        }
        // The header written after this flush names the step's high-water mark, so the file must reach it
        // even where the pages near it were freed before they were ever written.
        long highestPage = step.HighWaterMark;
        long bytes = 0, lowest = long.MaxValue, highest = 0;
        if (_ops.Length < _batch.Count)
            _ops = new PalWriteOp[Math.Max(_batch.Count, _ops.Length * 2)];
        for (int i = 0; i < _batch.Count; i++)
        {
            var (pageNumber, version) = _batch[i];
            // Never let a damaged in-memory page reach the disk: re-check what commit stamped.
            PageChecksum.Validate((byte*)version.Pointer, pageNumber, pageNumber + version.PageCount, "scratch memory");
            long length = (long)version.PageCount * StorageConstants.PageSize;
            _ops[i] = new PalWriteOp((void*)version.Pointer, pageNumber * StorageConstants.PageSize, length);
            highestPage = Math.Max(highestPage, pageNumber + version.PageCount);
            bytes += length;
            lowest = Math.Min(lowest, version.TransactionId);
            highest = Math.Max(highest, version.TransactionId);
        }
        Grow(highestPage, step.UpTo);
        if (_batch.Count > 0)
            dataFile.WritePages(_ops.AsSpan(0, _batch.Count));
        LastFlush = new FlushStats(_batch.Count, bytes, _batch.Count > 0 ? lowest : 0, highest);
        return _batch;
    }

    private void Grow(long pages, long upTo)
    {
        long before = dataFile.PageCount;
        try
        {
            dataFile.EnsureCapacity(pages);
        }
        catch (DiskFullException e)
        {
            long needed = (pages - before) * StorageConstants.PageSize;
            string free = FreeBytes(dataFile.FilePath) is { } bytes ? $"{bytes} bytes" : "an unknown number of bytes";
            throw new DiskFullException(
                $"Disk full: the data file '{dataFile.FilePath}' must grow by {needed} bytes (from {before * StorageConstants.PageSize} to " +
                $"{pages * StorageConstants.PageSize}) to take the pages of transactions up to {upTo}, and its file system has {free} free. " +
                "Nothing was written; the journals keep every committed transaction. (OS: " + e.Message + ")",
                e.Status, e.OsError, e.Operation, e.FilePath, e.Offset);
        }
    }

    private static long? FreeBytes(string path)
    {
        try
        {
            return PalFileSystem.GetInfo(Path.GetDirectoryName(Path.GetFullPath(path))!).FreeBytes;
        }
        catch (PalIOException)
        {
            return null;
        }
    }
}
