using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Errors;
using Cairn.FreeSpace;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Transactions;
using Microsoft.Extensions.Logging;

namespace Cairn.Commit;

/// <summary>How one commit reaches the journal (<see cref="TransactionCommitter.Choose"/>).</summary>
internal enum CommitPath
{
    /// <summary>Prepared, written and published in a row; the write lock goes afterwards.</summary>
    Durable,

    /// <summary>Published at once, its entry queued for a later write; the call returns without waiting for it.</summary>
    Lazy,

    /// <summary>Published and queued as a lazy commit is, the write lock handed to the waiting writer, then waits until durable.</summary>
    Group,
}

/// <summary>
/// How an environment's write transactions commit. It owns the one writer (<see cref="WriterLock"/>), the
/// <see cref="CommitPipeline"/> with its <see cref="CommitQueue"/>, and the choice for each commit between a durable,
/// a lazy and a group commit (<see cref="Choose"/>). <c>WriteTransaction.Commit</c> (through the environment) and the
/// transaction merger (through its pipeline adapter, <c>Merger/CommittedMergerPipeline</c>) both commit here.
/// </summary>
internal sealed class TransactionCommitter : IDisposable
{
    private readonly DataFile _dataFile;
    private readonly ScratchAllocator _scratch;
    private readonly FreeSpaceMap _freeSpace;
    private readonly ScratchBudget _budget;
    private readonly FailureLatch _failure;
    // The BeginWrite transaction's dirty-page map and freed list, reused (under the write lock): no allocation per commit.
    private readonly DirtyPageMap _userDirtyPages = new();
    private readonly List<(long, int)> _userFreedPages = [];
    // A BeginWrite transaction is open (as opposed to the merger, Verify or a replica's apply holding the write lock).
    private volatile bool _userWriterOpen;

    /// <param name="states">Where committed states are published to readers.</param>
    /// <param name="dataFile">The data file transactions read through.</param>
    /// <param name="scratch">Where transactions keep their private page copies.</param>
    /// <param name="freeSpace">The writer's free-space map.</param>
    /// <param name="budget">The scratch-memory limit writers wait on.</param>
    /// <param name="failure">The environment's failure latch.</param>
    /// <param name="journal">Where the write stage appends: the environment's own journal, or its journal group member.</param>
    /// <param name="environmentId">Written into each journal entry.</param>
    /// <param name="logger">Where slow writes and failures are logged.</param>
    /// <param name="published">Runs after every publication.</param>
    /// <param name="entryOptions">How entries are encoded (compression).</param>
    /// <param name="lazyBounds">When queued lazy entries are written at the latest.</param>
    public TransactionCommitter(StatePublisher states, DataFile dataFile, ScratchAllocator scratch, FreeSpaceMap freeSpace,
        ScratchBudget budget, FailureLatch failure, IJournalAppender journal, Guid environmentId, ILogger logger, Action published,
        JournalWriterOptions entryOptions, (long MaxBytes, TimeSpan MaxDelay) lazyBounds)
    {
        _dataFile = dataFile;
        _scratch = scratch;
        _freeSpace = freeSpace;
        _budget = budget;
        _failure = failure;
        Writer = new WriterLock(states, freeSpace, budget, failure);
        Pipeline = new CommitPipeline(states, journal, freeSpace, failure, environmentId, logger, published, entryOptions, lazyBounds);
        // The flusher cannot write what the journal does not hold yet: a writer short of scratch memory writes the queue first.
        Writer.BeforeScratchWait = Pipeline.Queue.WriteQueued;
    }

    /// <summary>The one writer: <c>BeginWrite</c>, the merger, <c>Verify</c> and a replica's apply each hold it while they work.</summary>
    public WriterLock Writer { get; }

    /// <summary>The stages the merger runs split across its threads (<c>WriteTransaction.Commit</c> goes through <see cref="Commit"/>).</summary>
    public CommitPipeline Pipeline { get; }

    /// <summary>Where the commit counters go; set once the environment's metrics exist (null: not counted).</summary>
    public EnvironmentMetrics? Metrics { get; set; }

    /// <summary>Whether a <c>BeginWrite</c> transaction is open (the close refuses to go on under it).</summary>
    public bool UserWriterOpen => _userWriterOpen;

    /// <summary>Where the write stage appends entries now (a standalone environment: its own journal, directly).</summary>
    public IJournalAppender Journal => Pipeline.Queue.Journal;

    /// <summary>
    /// The environment joined a journal group (a root on its first branch): from the next write on, entries go through
    /// <paramref name="journal"/>. Waits for a write under way; entries already queued go through the new one.
    /// </summary>
    public void WriteThrough(IJournalAppender journal) => Pipeline.Queue.SwitchJournal(journal);

    /// <summary>
    /// The policy: a lazy commit stays lazy; a durable one is written in a row unless another writer waits for the
    /// lock, when it is group-committed (the waiter goes on while this entry is written with those queued around it),
    /// or a write of queued entries is under way (<see cref="CommitQueue.WriteUnderWay"/>), when it is group-committed
    /// too: written in a row it would hold the lock while it waits for that write, then through its own.
    /// </summary>
    public static CommitPath Choose(bool lazy, bool othersWaiting, bool writeUnderWay)
        => lazy ? CommitPath.Lazy : othersWaiting || writeUnderWay ? CommitPath.Group : CommitPath.Durable;

    /// <summary>
    /// With the write lock held (<see cref="WriterLock.TryAcquire"/>): starts the <c>BeginWrite</c> transaction on the
    /// newest state (waiting for scratch memory if needed). On an exception the lock is released.
    /// </summary>
    public LowLevelTransaction StartUserWrite()
    {
        var state = Writer.StartWriting();
        var low = OpenTransaction(state, _userDirtyPages, _userFreedPages);
        _userWriterOpen = true;
        return low;
    }

    /// <summary>A write transaction on <paramref name="state"/>, keeping its changes in the caller's reused collections.</summary>
    public LowLevelTransaction OpenTransaction(EnvironmentState state, DirtyPageMap dirty,
        List<(long, int)> freed)
        => LowLevelTransaction.ForWriting(_dataFile, _scratch, state, _freeSpace, dirty, freed);

    /// <summary>
    /// Commits the <c>BeginWrite</c> transaction as <see cref="Choose"/> says, and lets the write lock go (before the
    /// wait, for a group commit). Returns the committed id (for a transaction that changed nothing, the id it read).
    /// </summary>
    public long Commit(LowLevelTransaction tx, bool lazy)
    {
        long started = Stopwatch.GetTimestamp();
        long committed;
        try
        {
            switch (Choose(lazy, Writer.OthersWaiting, Pipeline.Queue.WriteUnderWay))
            {
                case CommitPath.Lazy:
                    committed = Pipeline.Commit(tx, lazy: true);
                    Metrics?.RecordLazyCommit();
                    return committed;
                case CommitPath.Durable:
                    committed = Pipeline.Commit(tx);
                    Metrics?.RecordDurableCommit(started);
                    return committed;
                default:
                    // Published and queued; a transaction that changed nothing waits for the entries before it.
                    committed = Pipeline.Commit(tx, lazy: true);
                    break;
            }
        }
        finally
        {
            EndUserWrite();
        }
        Pipeline.Queue.WaitDurable(committed);
        Metrics?.RecordDurableCommit(started);
        return committed;
    }

    /// <summary>Drops the <c>BeginWrite</c> transaction and lets the write lock go.</summary>
    public void Abort(LowLevelTransaction tx)
    {
        try
        {
            Pipeline.Discard(tx);
        }
        finally
        {
            EndUserWrite();
        }
    }

    private void EndUserWrite()
    {
        _userWriterOpen = false;
        Writer.StopWriting();
    }

    /// <summary>Writes every queued (lazy or group-committed) entry; throws the environment's failure if the write fails.</summary>
    public void WriteQueued() => Pipeline.Queue.WriteQueued();

    /// <summary>The environment became a replica (in <paramref name="directory"/>): every local commit with changes is refused.</summary>
    public void RefuseLocalCommits(string directory) => Pipeline.RefuseLocalCommits(directory);

    /// <summary>The merger starts a chain of merged transactions: refuses a failed environment, then takes the write lock.</summary>
    public EnvironmentState EnterMergedWrites()
    {
        _failure.ThrowIfFailed();
        Writer.Acquire();
        return Writer.StartWriting();
    }

    /// <summary>Whether scratch memory is over its limit (the merger lets what is in flight finish, then waits).</summary>
    public bool ScratchOverLimit => _budget.OverLimit;

    /// <summary>At the close, before the components it writes through go: what is still queued is lost, as a crash would lose it (a clean close wrote it).</summary>
    public void DropQueued() => Pipeline.Queue.Dispose();

    /// <summary>Frees the pipeline's buffers (dropping what is still queued) and the writer.</summary>
    public void Dispose()
    {
        Pipeline.Dispose();
        Writer.Dispose();
    }
}
