using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Merger;
using Cairn.Transactions;

namespace Cairn;

public sealed unsafe partial class StorageEnvironment : IAsyncDisposable
{
    private readonly Lock _mergerGate = new();
    private TransactionMerger? _merger;
    // A BeginWrite transaction is open (as opposed to the merger holding the write lock).
    private volatile bool _userWriterOpen;

    /// <summary>
    /// Queues <paramref name="operation"/> to run, with many other callers' operations, in one write
    /// transaction of the transaction merger; the task completes when that transaction is durable.
    /// </summary>
    /// <remarks>
    /// <para>The operation runs later, on the merger's thread: pass what it needs through
    /// <paramref name="state"/> (a static lambda allocates nothing), and copy spans into the state first.
    /// It must not commit or dispose the transaction, and must not block or wait for other work (least of all
    /// another <c>WriteAsync</c>): every other caller's operation waits for it.</para>
    /// <para>An operation that throws fails alone: the transaction is rolled back and the batch's other
    /// operations run again without it, so an operation may run more than once: keep side effects
    /// other than on the transaction out of it.</para>
    /// <para>Cancellation counts until the merger takes the operation. A full queue
    /// (<see cref="StorageOptions.MergerMaxQueuedOperations"/>) makes the caller wait, up to
    /// <see cref="StorageOptions.MergerQueueTimeout"/>, then the task fails with <see cref="MergerQueueFullException"/>.
    /// A failed journal write fails this and every later operation with <see cref="EnvironmentFailedException"/>.</para>
    /// </remarks>
    public ValueTask WriteAsync<TState>(TState state, Action<WriteTransaction, TState> operation, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(operation);
        var merger = Merger;
        if (cancellationToken.IsCancellationRequested)
            return ValueTask.FromCanceled(cancellationToken);
        if (_failure is not null)
            return ValueTask.FromException(FailureException());
        var merged = MergedAction<TState>.Rent(operation, state);
        var task = merged.Task;
        if (!merger.TryEnqueue(merged, cancellationToken))
            return MergerBackPressure.EnqueueWhenRoom(merger, merged, task, cancellationToken);
        return task;
    }

    /// <summary>
    /// Like <see cref="WriteAsync{TState}(TState, Action{WriteTransaction, TState}, CancellationToken)"/>, for an
    /// operation with a result, which the task returns once the transaction holding the operation is durable.
    /// </summary>
    public ValueTask<TResult> WriteAsync<TState, TResult>(TState state, Func<WriteTransaction, TState, TResult> operation,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(operation);
        var merger = Merger;
        if (cancellationToken.IsCancellationRequested)
            return ValueTask.FromCanceled<TResult>(cancellationToken);
        if (_failure is not null)
            return ValueTask.FromException<TResult>(FailureException());
        var merged = MergedFunction<TState, TResult>.Rent(operation, state);
        var task = merged.Task;
        if (!merger.TryEnqueue(merged, cancellationToken))
            return MergerBackPressure.EnqueueWhenRoom(merger, merged, task, cancellationToken);
        return task;
    }

    /// <summary>What the transaction merger has done so far (all zeros until the first <c>WriteAsync</c>).</summary>
    public MergerStatistics MergerStats => _merger?.Statistics ?? s_noMergerStatistics;

    private static readonly MergerStatistics s_noMergerStatistics = new();

    /// <summary>Drains the merger's queue (every queued operation runs and commits), then closes as <see cref="Dispose"/> does.</summary>
    public ValueTask DisposeAsync()
    {
        var merger = _merger;
        if (merger is null || Volatile.Read(ref _disposed) != 0 || _userWriterOpen)
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
        return MergerBackPressure.StopThenDispose(merger, this);
    }

    private TransactionMerger Merger
    {
        get
        {
            ThrowIfDisposed();
            var merger = Volatile.Read(ref _merger);
            if (merger is not null)
                return merger;
            lock (_mergerGate)
            {
                ThrowIfDisposed();
                return _merger ??= new TransactionMerger(this, _options);
            }
        }
    }

    /// <summary>Dispose's first step: no new operations, every queued one committed (or failed).</summary>
    private void StopMerger()
    {
        TransactionMerger? merger;
        lock (_mergerGate)
            merger = _merger;
        merger?.Stop();
    }

    // ---- The merger's side of a commit, split so that the journal write can run beside the next batch. ----

    /// <summary>Takes the write lock for a chain of merged transactions and returns the state the first one starts from.</summary>
    internal EnvironmentState EnterMergedWrites()
    {
        ThrowIfFailed();
        _writeLock.Wait();
        try
        {
            ThrowIfFailed();
            if (_scratch.BytesInUse >= _options.MaxScratchBytes)
                WaitForScratchMemory();
            ReclaimUnreachable();
            return PublishReader(_writerSlot, Volatile.Read(ref _current));
        }
        catch
        {
            LeaveMergedWrites();
            throw;
        }
    }

    internal void LeaveMergedWrites()
    {
        _readers.MarkIdle(_writerSlot);
        _writeLock.Release();
    }

    internal bool ScratchOverLimit => _scratch.BytesInUse >= _options.MaxScratchBytes;

    /// <summary>With nothing in flight: waits until scratch memory is under its limit, and returns the state to go on from.</summary>
    internal EnvironmentState WaitForMergedScratch()
    {
        WaitForScratchMemory();
        return PublishReader(_writerSlot, Volatile.Read(ref _current));
    }

    /// <summary>
    /// A merged transaction on <paramref name="baseState"/>: the published state, or the pending state of the
    /// transaction whose journal write is in flight. The writer's reader slot stays at the last published
    /// state it was given, which keeps everything the pending state still points at from being reclaimed.
    /// </summary>
    internal LowLevelTransaction BeginMergedTransaction(EnvironmentState baseState, Dictionary<long, LowLevelTransaction.DirtyRun> dirty,
        List<(long, int)> freed)
    {
        ReclaimUnreachable();
        return LowLevelTransaction.ForWriting(_dataFile, _scratch, baseState, _freeSpace, dirty, freed);
    }

    /// <summary>Drops a merged transaction's private pages (its allocations are rolled back separately).</summary>
    internal void DiscardMergedTransaction(LowLevelTransaction tx) => tx.DiscardDirtyPages();

    /// <summary>Returns the pages allocated since the last prepared merged transaction to the free-space map.</summary>
    internal void RollbackMergedAllocations() => _freeSpace.Rollback();

    /// <summary>
    /// Stamps the slot's transaction, builds its journal entry into the slot's buffer, makes its allocations
    /// final and builds the state it will publish, which the next merged transaction reads through until then.
    /// A transaction that changed nothing gets an entry length of 0 (nothing to write).
    /// </summary>
    internal void PrepareMergedCommit(CommitSlot slot)
    {
        ThrowIfFailed();
        var wtx = slot.Transaction!;
        wtx.SaveForMergedCommit();
        var tx = slot.Low!;
        if (tx.DirtyPages.Count == 0 && tx.FreedPages.Count == 0)
        {
            _freeSpace.Commit();
            slot.TransactionId = tx.State.TransactionId;
            slot.EntryLength = 0;
            return;
        }
        tx.StampDirtyPages();
        long transactionId = tx.State.TransactionId + 1;
        slot.EntryLength = BuildJournalEntry(tx, transactionId, slot.Buffer);
        slot.TransactionId = transactionId;
        _freeSpace.Commit();
        slot.PreparedOn = tx.State;
        slot.Pending = BuildPendingState(tx, transactionId);
    }

    private static EnvironmentState BuildPendingState(LowLevelTransaction tx, long transactionId)
    {
        var baseState = tx.State;
        // Never published: its epoch is its base's, which is the one the writer's reader slot holds.
        return new EnvironmentState(transactionId, baseState.Epoch, WithTransactionPages(baseState.Pages, tx, transactionId), tx.NextPageNumber, tx.RootTree,
            baseState.FreeSpaceDirectoryPage, baseState.View, baseState.JournalPosition);
    }

    /// <summary>On the journal writer's thread: the durable write of a prepared entry.</summary>
    internal JournalPosition AppendMergedEntry(byte* entry, long length, long transactionId)
        => _journal.Append(entry, length, transactionId, transactionId, transactionCount: 1);

    /// <summary>
    /// A merged transaction's journal write failed. A full disk is not survivable here as it is for
    /// <see cref="WriteTransaction.Commit"/>: the next transaction already stands on this one, so the
    /// environment fails either way and a reopen recovers what was durable.
    /// </summary>
    internal EnvironmentFailedException FailMergedWrite(Exception error)
    {
        var cause = error is JournalWriteFatalException fatal ? fatal.InnerException ?? fatal : error;
        return Fail("writing the journal (merged transaction)", cause);
    }

    /// <summary>
    /// On the journal writer's thread, right after the entry became durable: publishes the merged
    /// transaction to readers. What it retires stays allocated while the writer's reader slot still holds
    /// the state the next transaction was opened on; <see cref="AdoptPublishedMergedCommit"/> moves that slot on.
    /// </summary>
    internal void PublishMergedCommit(CommitSlot slot)
    {
        Publish(slot.Low!, slot.TransactionId, slot.Position, commitFreeSpace: false, slot.Pending!.Pages, slot.PreparedOn);
        AfterCommit();
    }

    /// <summary>On the merger's thread, after <see cref="PublishMergedCommit"/>: the newest state, which the writer now reads from.</summary>
    internal EnvironmentState AdoptPublishedMergedCommit() => PublishReader(_writerSlot, Volatile.Read(ref _current));
}
