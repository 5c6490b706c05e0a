using Cairn.Flushing;
using Cairn.Journal;
using Cairn.Pal;
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

    /// <summary>What the last header write recorded.</summary>
    public SyncPoint? HeaderState { get; private set; }

    public string DataFilePath => "fake.data";

    public long RetainedJournalBytes { get; set; }

    /// <summary>The size of each full journal by its sequence, as <see cref="JournalFileBytes"/> reports them.</summary>
    public Dictionary<long, long> JournalSizes { get; } = [];

    /// <summary>How many times the scheduler asked for <see cref="JournalFileBytes"/>.</summary>
    public int JournalFileBytesCalls { get; private set; }

    public long JournalFileBytes(long fromSequence, long belowSequence)
    {
        JournalFileBytesCalls++;
        return JournalSizes.Where(j => j.Key >= fromSequence && j.Key < belowSequence).Sum(j => j.Value);
    }

    public long OlderHeaderTransactionId => _olderHeader;

    public void FailNextWrite(Exception error) => _nextWriteError = error;

    public void FailNextSync(Exception error) => _nextSyncError = error;

    /// <summary>The sync points <see cref="JournalEnds"/> offers (the ends of the journals kept), in log order.</summary>
    public List<SyncPoint> KeptJournalEnds { get; } = [];

    /// <summary>
    /// A disk of this many pages for the data file (and the journals released so far, <see cref="PagesFreedPerRelease"/>
    /// each): a write that would grow the file past it throws <see cref="DiskFullException"/>. Unlimited by default.
    /// </summary>
    public long DiskPages { get; set; } = long.MaxValue;

    public long PagesFreedPerRelease { get; set; }

    /// <summary>The data file's size in pages, as the writes grew it.</summary>
    public long FilePages { get; private set; }

    public List<(long PageNumber, PageVersion Version)> WritePages(EnvironmentState state, long flushedUpTo, FlushStep step, out long bytes)
    {
        string what = step.BelowPage == long.MaxValue && step.FromPage == 0
            ? $"write {state.TransactionId} after {flushedUpTo}"
            : $"write {state.TransactionId} after {flushedUpTo} pages {step.FromPage}..{(step.BelowPage == long.MaxValue ? "end" : step.BelowPage)} for {step.UpTo}";
        if (Take(ref _nextWriteError) is { } error)
        {
            Calls.Add($"{what} failed");
            throw error;
        }
        var written = new List<(long PageNumber, PageVersion Version)>();
        long highest = step.HighWaterMark;
        foreach (var (pageNumber, version) in state.Pages)
        {
            if (version.TransactionId > flushedUpTo && pageNumber >= step.FromPage && pageNumber < step.BelowPage)
            {
                written.Add((pageNumber, version));
                highest = Math.Max(highest, pageNumber + version.PageCount);
            }
        }
        if (highest > DiskPages)
        {
            Calls.Add($"{what}: disk full");
            throw new DiskFullException($"the fake disk holds {DiskPages} pages, the flush needs {highest}", PalStatus.DiskFull, 28, "allocating", DataFilePath, 0);
        }
        FilePages = Math.Max(FilePages, highest);
        WrittenStates.Add(state);
        Calls.Add($"{what}: {string.Join(" ", written.Select(w => $"{w.PageNumber}@{w.Version.TransactionId}"))}");
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

    public void WriteHeader(SyncPoint synced, bool catchUpOlderCopy)
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

    public (int Deleted, int Recycled) ReleaseJournals(long upTo, bool keepSpares = true)
    {
        Calls.Add($"release journals up to {upTo}{(keepSpares ? "" : ", deleting them")}");
        int released = KeptJournalEnds.RemoveAll(end => end.TransactionId <= upTo);
        if (DiskPages != long.MaxValue)
            DiskPages += released * PagesFreedPerRelease;
        return (1, 0);
    }

    public List<SyncPoint> JournalEnds(long after, long before)
        => [.. KeptJournalEnds.Where(end => end.TransactionId > after && end.TransactionId < before)];

    public void DeleteSpareJournals() => Calls.Add("delete spare journals");

    public (int Deleted, int Recycled) ReleaseAllJournals()
    {
        Calls.Add("release all journals");
        return (2, 1);
    }

    private static Exception? Take(ref Exception? error) => Interlocked.Exchange(ref error, null);
}
