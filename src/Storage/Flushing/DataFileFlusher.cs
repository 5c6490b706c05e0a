using Cairn.Pal;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Flushing;

/// <summary>
/// Moves committed page versions from scratch memory to the data file. Only versions no reader can
/// still need the previous data-file copy of are written (their transaction is at or below the
/// oldest reader's), so no reader ever sees a data-file page change under it. Pages are written
/// sorted and merged into vectored runs by the PAL's data-file writer, each validated first.
/// </summary>
internal sealed unsafe class DataFileFlusher(DataFile dataFile)
{
    private readonly List<(long PageNumber, PageVersion Version)> _batch = [];
    private PalWriteOp[] _ops = new PalWriteOp[256];

    /// <summary>
    /// Writes every version with a transaction id ≤ <paramref name="oldestReaderTransaction"/> and
    /// returns them (the caller removes them from the page table and retires their memory).
    /// </summary>
    public List<(long PageNumber, PageVersion Version)> Flush(EnvironmentState state, long oldestReaderTransaction)
    {
        _batch.Clear();
        foreach (var (pageNumber, version) in state.Pages)
        {
            if (version.TransactionId <= oldestReaderTransaction)
                _batch.Add((pageNumber, version));
        }
        if (_batch.Count == 0)
            return _batch;

        if (_ops.Length < _batch.Count)
            _ops = new PalWriteOp[Math.Max(_batch.Count, _ops.Length * 2)];
        long highestPage = 0;
        for (int i = 0; i < _batch.Count; i++)
        {
            var (pageNumber, version) = _batch[i];
            // Never let a damaged in-memory page reach the disk: re-check what commit stamped.
            PageChecksum.Validate((byte*)version.Pointer, pageNumber, pageNumber + version.PageCount, "scratch memory");
            _ops[i] = new PalWriteOp((void*)version.Pointer, pageNumber * StorageConstants.PageSize,
                (long)version.PageCount * StorageConstants.PageSize);
            highestPage = Math.Max(highestPage, pageNumber + version.PageCount);
        }
        dataFile.EnsureCapacity(highestPage);
        dataFile.WritePages(_ops.AsSpan(0, _batch.Count));
        return _batch;
    }
}
