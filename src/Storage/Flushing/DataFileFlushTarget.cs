using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Flushing;

/// <summary>The environment's own files as a flush target: its data file, header copies and journals.</summary>
internal sealed class DataFileFlushTarget(DataFile dataFile, HeaderStore headers, WriteAheadJournal journal) : IFlushTarget
{
    private readonly DataFileFlusher _flusher = new(dataFile);

    public string DataFilePath => dataFile.FilePath;

    public List<(long PageNumber, PageVersion Version)> WritePages(EnvironmentState state, long flushedUpTo, out long bytes)
    {
        var written = _flusher.Flush(state, flushedUpTo);
        bytes = _flusher.LastFlush.Bytes;
        return written;
    }

    public MappedView? RemapIfGrown(MappedView view) => dataFile.PageCount != view.PageCount ? dataFile.Map() : null;

    public void SyncDataFile() => dataFile.Sync();

    public void WriteHeader(EnvironmentState synced, bool catchUpOlderCopy)
    {
        var header = headers.Current;
        header.LastTransactionId = synced.TransactionId;
        header.Root = synced.Root;
        header.JournalSequence = synced.JournalPosition.Sequence;
        header.JournalOffset = synced.JournalPosition.EndOffset;
        headers.Write(header);
        if (catchUpOlderCopy)
            headers.CatchUp();
    }

    public void CatchUpOlderHeaderCopy() => headers.CatchUp();

    public long OlderHeaderTransactionId => headers.Previous.LastTransactionId;

    public long RetainedJournalBytes => journal.RetainedBytes;

    public (int Deleted, int Recycled) ReleaseJournals(long upTo) => journal.Release(upTo);

    public (int Deleted, int Recycled) ReleaseAllJournals() => journal.ReleaseAll();
}
