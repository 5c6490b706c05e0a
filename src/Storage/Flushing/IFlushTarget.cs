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

    /// <summary>Writes every version of <paramref name="state"/> newer than <paramref name="flushedUpTo"/>; returns them (a list the target reuses).</summary>
    List<(long PageNumber, PageVersion Version)> WritePages(EnvironmentState state, long flushedUpTo, out long bytes);

    /// <summary>A new mapping if the data file grew past <paramref name="view"/>; null if it did not.</summary>
    MappedView? RemapIfGrown(MappedView view);

    void SyncDataFile();

    /// <summary>Records <paramref name="synced"/> in the older header copy (and, if asked, then in the other copy too).</summary>
    void WriteHeader(EnvironmentState synced, bool catchUpOlderCopy);

    /// <summary>Writes the current header into the older copy too.</summary>
    void CatchUpOlderHeaderCopy();

    /// <summary>The transaction the older header copy is synced up to: journals at or below it may go.</summary>
    long OlderHeaderTransactionId { get; }

    long RetainedJournalBytes { get; }

    (int Deleted, int Recycled) ReleaseJournals(long upTo);

    (int Deleted, int Recycled) ReleaseAllJournals();
}
