using Cairn.Journal;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Flushing;

/// <summary>
/// The files a flush and a sync touch: the data file's pages, its header, and the journals a synced
/// header makes unnecessary. <see cref="DataFileFlushTarget"/> is the real one; tests use a fake to drive
/// the <see cref="FlushScheduler"/> on its own.
/// </summary>
internal interface IFlushTarget
{
    string DataFilePath { get; }

    /// <summary>
    /// Writes every version of <paramref name="state"/> newer than <paramref name="flushedUpTo"/> whose run starts in
    /// <paramref name="step"/>'s page range, the file grown first to cover them and the step's high-water mark; returns
    /// them (a list the target reuses).
    /// </summary>
    List<(long PageNumber, PageVersion Version)> WritePages(EnvironmentState state, long flushedUpTo, FlushStep step, out long bytes);

    /// <summary>A new mapping if the data file grew past <paramref name="view"/>; null if it did not.</summary>
    MappedView? RemapIfGrown(MappedView view);

    void SyncDataFile();

    /// <summary>Records <paramref name="synced"/> in the older header copy (and, if asked, then in the other copy too).</summary>
    void WriteHeader(SyncPoint synced, bool catchUpOlderCopy);

    /// <summary>Writes the current header into the older copy too.</summary>
    void CatchUpOlderHeaderCopy();

    /// <summary>The transaction the older header copy is synced up to: journals at or below it may go.</summary>
    long OlderHeaderTransactionId { get; }

    long RetainedJournalBytes { get; }

    /// <summary>The sizes of the full journals (not the one in service) with a sequence in [<paramref name="fromSequence"/>, <paramref name="belowSequence"/>).</summary>
    long JournalFileBytes(long fromSequence, long belowSequence);

    /// <summary>Releases the journals at or below <paramref name="upTo"/>; <paramref name="keepSpares"/> false: deletes them all, none kept for reuse.</summary>
    (int Deleted, int Recycled) ReleaseJournals(long upTo, bool keepSpares = true);

    /// <summary>The sync points at the ends of the journals kept whose last transaction is above <paramref name="after"/> and below <paramref name="before"/>, in log order.</summary>
    List<SyncPoint> JournalEnds(long after, long before);

    /// <summary>Deletes the journal files kept for reuse, whose space a checkpoint short of it needs.</summary>
    void DeleteSpareJournals();

    (int Deleted, int Recycled) ReleaseAllJournals();
}
