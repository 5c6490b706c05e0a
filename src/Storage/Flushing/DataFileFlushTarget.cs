using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Flushing;

/// <summary>The environment's own files as a flush target: its data file, header copies and journals.</summary>
internal sealed class DataFileFlushTarget(DataFile dataFile, HeaderStore headers, WriteAheadJournal journal) : IFlushTarget
{
    private readonly DataFileFlusher _flusher = new(dataFile);

    public string DataFilePath => dataFile.FilePath;

    public List<(long PageNumber, PageVersion Version)> WritePages(EnvironmentState state, long flushedUpTo, FlushStep step, out long bytes)
    {
        var written = _flusher.Flush(state, flushedUpTo, step);
        bytes = _flusher.LastFlush.Bytes;
        return written;
    }

    public MappedView? RemapIfGrown(MappedView view) => dataFile.PageCount != view.PageCount ? dataFile.Map() : null;

    public void SyncDataFile() => dataFile.Sync();

    public void WriteHeader(SyncPoint synced, bool catchUpOlderCopy)
    {
        var header = headers.Current;
        header.LastTransactionId = synced.TransactionId;
        header.Root = synced.Root;
        header.JournalSequence = synced.Position.Sequence;
        header.JournalOffset = synced.Position.EndOffset;
        headers.Write(header);
        if (catchUpOlderCopy)
            headers.CatchUp();
    }

    public void CatchUpOlderHeaderCopy() => headers.CatchUp();

    public long OlderHeaderTransactionId => headers.Previous.LastTransactionId;

    public long RetainedJournalBytes => journal.RetainedBytes;

    public long JournalFileBytes(long fromSequence, long belowSequence) => journal.FileBytesBetween(fromSequence, belowSequence);

    public (int Deleted, int Recycled) ReleaseJournals(long upTo, bool keepSpares = true) => journal.Release(upTo, keepSpares);

    public List<SyncPoint> JournalEnds(long after, long before) => journal.RetainedEnds(headers.Current.EnvironmentId, after, before);

    public void DeleteSpareJournals() => journal.DeleteSpares();

    public (int Deleted, int Recycled) ReleaseAllJournals() => journal.ReleaseAll();
}
