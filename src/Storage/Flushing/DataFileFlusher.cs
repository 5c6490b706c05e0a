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
    /// Writes every version of <paramref name="state"/> with a transaction id above
    /// <paramref name="flushedUpTo"/>, grows the file to cover the state's high-water mark, and returns
    /// the versions written (the caller removes them from the current page table and retires them).
    /// </summary>
    public List<(long PageNumber, PageVersion Version)> Flush(EnvironmentState state, long flushedUpTo)
    {
        _batch.Clear();
        foreach (var (pageNumber, version) in state.Pages)
        {
            if (version.TransactionId > flushedUpTo)
                _batch.Add((pageNumber, version));
        }
        // The header written after this flush names the state's high-water mark, so the file must reach it
        // even where the pages near it were freed before they were ever written.
        long highestPage = state.NextPageNumber;
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
        dataFile.EnsureCapacity(highestPage);
        if (_batch.Count > 0)
            dataFile.WritePages(_ops.AsSpan(0, _batch.Count));
        LastFlush = new FlushStats(_batch.Count, bytes, _batch.Count > 0 ? lowest : 0, highest);
        return _batch;
    }
}
