using Cairn.Diagnostics;
using Cairn.Errors;
using Cairn.Flushing;
using Cairn.FreeSpace;
using Cairn.Journal;
using Cairn.Paging;
using Cairn.Tests.Support;
using Cairn.Transactions;

namespace Cairn.Tests.Flushing;

/// <summary>
/// A <see cref="FlushScheduler"/> over a <see cref="FakeFlushTarget"/> and a <see cref="FakeClock"/>, with no
/// background thread (the test runs the cycle), and a real <see cref="StatePublisher"/> whose commits hold
/// real scratch pages. No state's view is ever read (the fake writes nothing and never remaps), so the
/// states carry none.
/// </summary>
internal sealed unsafe class FlushHarness : IDisposable
{
    public static readonly TimeSpan FlushDelay = TimeSpan.FromSeconds(1);
    public static readonly TimeSpan SyncInterval = TimeSpan.FromSeconds(10);
    public const long MaxJournalFileBytes = 1 << 20;

    private readonly FreeSpaceMap _freeSpace = FreeSpaceMap.CreateEmpty(2);
    private readonly List<int> _readers = [];

    /// <param name="flushThresholdBytes">Scratch memory that makes a flush due at once (default: never).</param>
    /// <param name="scratchLimit">The scratch budget's limit, past which writers wait (default: never).</param>
    /// <param name="maxRecoveryJournalBytes">The recovery objective (default: none).</param>
    /// <param name="prepareAhead">The scratch allocator's preparation scheduler (default: none prepared).</param>
    public FlushHarness(long flushThresholdBytes = long.MaxValue, long scratchLimit = long.MaxValue, long maxRecoveryJournalBytes = long.MaxValue,
        Action<Action>? prepareAhead = null)
    {
        Scratch = new ScratchAllocator(prepareAhead: prepareAhead);
        var initial = new EnvironmentState(0, epoch: 1, PageTable.Empty, new RootRecord(64, 2, default), view: null!, JournalPosition.None);
        States = new StatePublisher(initial, Scratch);
        var logger = Logs.CreateLogger("flush");
        Failure = new FailureLatch("flush-test", logger);
        Budget = new ScratchBudget(Scratch, scratchLimit, TimeSpan.FromSeconds(30), Failure, logger);
        Settings = new FlushSettings(FlushDelay, flushThresholdBytes, SyncInterval, MaxJournalFileBytes) { MaxRecoveryJournalBytes = maxRecoveryJournalBytes };
        Scheduler = new FlushScheduler(States, Target, Budget, Scratch, Failure, Settings, IoStats, logger, syncedUpTo: 0, Clock);
    }

    public ScratchAllocator Scratch { get; }

    public StatePublisher States { get; }

    public FakeFlushTarget Target { get; } = new();

    public FakeClock Clock { get; } = new();

    public CapturingLoggerFactory Logs { get; } = new();

    public IoStats IoStats { get; } = new();

    public FailureLatch Failure { get; }

    public ScratchBudget Budget { get; }

    public FlushSettings Settings { get; }

    public FlushScheduler Scheduler { get; }

    /// <summary>Publishes a transaction that wrote one page at each of <paramref name="pageNumbers"/>, as the commit pipeline does.</summary>
    public EnvironmentState Commit(params long[] pageNumbers)
        => CommitAt(new JournalPosition(1, (States.Current.TransactionId + 1) * JournalEntryHeader.Alignment), pageNumbers);

    /// <summary>As <see cref="Commit"/>, with its journal entry ending at <paramref name="position"/>.</summary>
    public EnvironmentState CommitAt(JournalPosition position, params long[] pageNumbers)
    {
        var current = States.Current;
        var tx = LowLevelTransaction.ForWriting(dataFile: null!, Scratch, current, _freeSpace, [], []);
        foreach (long pageNumber in pageNumbers)
            tx.CreatePages(pageNumber, 1);
        long id = current.TransactionId + 1;
        // The page table owns the pages from here on.
        States.PublishCommit(tx, id, position);
        Scheduler.OnPublished();
        return States.Current;
    }

    /// <summary>
    /// As <see cref="Commit"/>, committed lazily: published before its journal entry is written, whose place the test
    /// fills into <paramref name="entry"/> and then marks durable (<see cref="StatePublisher.MarkDurable"/>), as the commit queue does.
    /// </summary>
    public EnvironmentState CommitLazily(EntryLocation entry, params long[] pageNumbers)
    {
        var current = States.Current;
        var tx = LowLevelTransaction.ForWriting(dataFile: null!, Scratch, current, _freeSpace, [], []);
        foreach (long pageNumber in pageNumbers)
            tx.CreatePages(pageNumber, 1);
        States.PublishCommit(tx, current.TransactionId + 1, JournalPosition.None, entry);
        Scheduler.OnPublished();
        return States.Current;
    }

    /// <summary>A reader that holds the current state until <see cref="EndReader"/>.</summary>
    public int BeginReader()
    {
        int slot = States.Readers.Reserve();
        States.Pin(slot);
        _readers.Add(slot);
        return slot;
    }

    public void EndReader(int slot)
    {
        States.Readers.MarkIdle(slot);
        States.Readers.Release(slot);
        _readers.Remove(slot);
    }

    /// <summary>Page numbers and versions (<c>page@transaction</c>) still in the current state's page table.</summary>
    public string PagesInScratch()
    {
        var pages = new List<(long PageNumber, long TransactionId)>();
        foreach (var (pageNumber, version) in States.Current.Pages)
            pages.Add((pageNumber, version.TransactionId));
        return string.Join(" ", pages.Order().Select(p => $"{p.PageNumber}@{p.TransactionId}"));
    }

    public void Dispose()
    {
        Scheduler.Dispose();
        foreach (int slot in _readers.ToArray())
            EndReader(slot);
        // With no reader left, publishing an empty flush reclaims every retired version; the current ones go by hand
        // (StatePublisher.ReleaseAll would also dispose the view these states do not have).
        States.PublishFlushed([], _ => null, Scheduler.ReaderSlot);
        foreach (var (_, version) in States.Current.Pages)
            Scratch.Free((byte*)version.Pointer, version.PageCount);
        Scratch.Dispose();
    }
}
