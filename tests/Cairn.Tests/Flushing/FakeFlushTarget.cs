using Cairn.Flushing;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Tests.Flushing;

/// <summary>
/// An <see cref="IFlushTarget"/> with no files: it records every call as a line of text, in order, keeps the
/// states it was asked to write, models the two header copies (a write goes to the older copy, which
/// becomes the newer), and fails the next write or sync when told to. Like the real flusher, it "writes"
/// the versions of the given state newer than the last flush.
/// </summary>
internal sealed class FakeFlushTarget : IFlushTarget
{
    private Exception? _nextWriteError;
    private Exception? _nextSyncError;
    private long _newerHeader;
    private long _olderHeader;

    public List<string> Calls { get; } = [];

    /// <summary>The states <see cref="WritePages"/> was given, in order.</summary>
    public List<EnvironmentState> WrittenStates { get; } = [];

    /// <summary>The state the last header write recorded.</summary>
    public EnvironmentState? HeaderState { get; private set; }

    public string DataFilePath => "fake.data";

    public long RetainedJournalBytes { get; set; }

    public long OlderHeaderTransactionId => _olderHeader;

    public void FailNextWrite(Exception error) => _nextWriteError = error;

    public void FailNextSync(Exception error) => _nextSyncError = error;

    public List<(long PageNumber, PageVersion Version)> WritePages(EnvironmentState state, long flushedUpTo, out long bytes)
    {
        if (Take(ref _nextWriteError) is { } error)
        {
            Calls.Add($"write {state.TransactionId} after {flushedUpTo} failed");
            throw error;
        }
        var written = new List<(long PageNumber, PageVersion Version)>();
        foreach (var (pageNumber, version) in state.Pages)
        {
            if (version.TransactionId > flushedUpTo)
                written.Add((pageNumber, version));
        }
        WrittenStates.Add(state);
        Calls.Add($"write {state.TransactionId} after {flushedUpTo}: {string.Join(" ", written.Select(w => $"{w.PageNumber}@{w.Version.TransactionId}"))}");
        bytes = written.Sum(w => (long)w.Version.PageCount * StorageConstants.PageSize);
        return written;
    }

    /// <summary>The fake never grows a file, so the scheduler's states keep their view (which nothing here reads).</summary>
    public MappedView? RemapIfGrown(MappedView view) => null;

    public void SyncDataFile()
    {
        if (Take(ref _nextSyncError) is { } error)
        {
            Calls.Add("sync failed");
            throw error;
        }
        Calls.Add("sync");
    }

    public void WriteHeader(EnvironmentState synced, bool catchUpOlderCopy)
    {
        HeaderState = synced;
        _olderHeader = _newerHeader;
        _newerHeader = synced.TransactionId;
        if (catchUpOlderCopy)
            _olderHeader = _newerHeader;
        Calls.Add($"header {synced.TransactionId}{(catchUpOlderCopy ? " in both copies" : "")}");
    }

    public void CatchUpOlderHeaderCopy()
    {
        _olderHeader = _newerHeader;
        Calls.Add("catch up older header");
    }

    public (int Deleted, int Recycled) ReleaseJournals(long upTo)
    {
        Calls.Add($"release journals up to {upTo}");
        return (1, 0);
    }

    public (int Deleted, int Recycled) ReleaseAllJournals()
    {
        Calls.Add("release all journals");
        return (2, 1);
    }

    private static Exception? Take(ref Exception? error) => Interlocked.Exchange(ref error, null);
}
