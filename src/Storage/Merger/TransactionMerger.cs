using System.Collections.Concurrent;
using System.Diagnostics;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Merger;

/// <summary>
/// Runs callers' write operations on one thread, many per transaction, one journal write per
/// transaction, and executes the next batch while the previous one is being written (early lock
/// release): when transaction N's entry is handed to the journal writer, N+1 opens on top of N's
/// not-yet-published state and takes operations until N is durable. Then N is published, its callers
/// are released (in commit order, continuations on the thread pool) and N+1 commits if it ran anything.
/// A batch that ran nothing ends the chain and lets the write lock go.
/// </summary>
/// <remarks>
/// The write lock is held from a chain's first operation to its end, so a <see cref="StorageEnvironment.BeginWrite()"/>
/// caller waits for the merger to go idle, and the merger waits for such a transaction to end.
/// </remarks>
internal sealed class TransactionMerger : IDisposable
{
    private readonly StorageEnvironment _environment;
    private readonly StorageOptions _options;
    private readonly ConcurrentQueue<QueuedOperation> _queue = new();
    private readonly SemaphoreSlim _queueSlots;
    private readonly ManualResetEventSlim _wake = new(false);
    private readonly CommitSlot[] _slots = [new(), new()];
    private readonly JournalWriteWorker _writer;
    private readonly Thread _thread;
    private readonly long _maxBatchTicks;
    private readonly long _maxTransactionPages;
    private readonly long _returnGraceTicks;
    private int _idle;
    private int _enqueuers;
    private volatile bool _stopping;
    private int _nextSlot;
    // The last wait for released callers saw none come back (they do something else between writes): the
    // next wait is skipped unless an operation is already queued, so sparse writers cost no spinning.
    private bool _gatherFruitless;

    public TransactionMerger(StorageEnvironment environment, StorageOptions options)
    {
        _environment = environment;
        _options = options;
        _queueSlots = new SemaphoreSlim(options.MergerMaxQueuedOperations, options.MergerMaxQueuedOperations);
        _maxBatchTicks = (long)(options.MergerMaxBatchDuration.TotalSeconds * Stopwatch.Frequency);
        _maxTransactionPages = Math.Max(1, options.MergerMaxTransactionBytes / StorageConstants.PageSize);
        _returnGraceTicks = (long)(options.MergerReturnGrace.TotalSeconds * Stopwatch.Frequency);
        _writer = new JournalWriteWorker(environment, OnDurable, WakeMerger);
        _thread = new Thread(Run) { IsBackground = true, Name = "cairn-merger" };
        _thread.Start();
    }

    public MergerStatistics Statistics { get; } = new();

    /// <summary>
    /// Queues an armed-to-be operation. Returns false when the queue is full: the caller then waits for
    /// room through <see cref="WaitForRoomAsync"/>. Throws <see cref="ObjectDisposedException"/> once stopping.
    /// </summary>
    public bool TryEnqueue(MergedOperation operation, CancellationToken cancellationToken)
    {
        if (!_queueSlots.Wait(0))
            return false;
        Enqueue(operation, cancellationToken);
        return true;
    }

    /// <summary>Waits (up to the configured timeout) for room in the queue, then queues the operation.</summary>
    public async ValueTask WaitForRoomAsync(MergedOperation operation, CancellationToken cancellationToken)
    {
        if (!await _queueSlots.WaitAsync(_options.MergerQueueTimeout, cancellationToken).ConfigureAwait(false))
            throw new MergerQueueFullException(_options.MergerMaxQueuedOperations, _options.MergerQueueTimeout);
        Enqueue(operation, cancellationToken);
    }

    private void Enqueue(MergedOperation operation, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _enqueuers);
        try
        {
            if (_stopping)
            {
                _queueSlots.Release();
                throw new ObjectDisposedException(nameof(StorageEnvironment), "The environment is closing: the merger takes no more operations.");
            }
            long token = operation.Token;
            operation.Arm(Stopwatch.GetTimestamp(), cancellationToken);
            _queue.Enqueue(new QueuedOperation(operation, token));
        }
        finally
        {
            Interlocked.Decrement(ref _enqueuers);
        }
        WakeMerger();
    }

    /// <summary>Producer side of the sleep protocol: the flag is read after the enqueue (a full fence), the merger sets it before its last look.</summary>
    private void WakeMerger()
    {
        if (Volatile.Read(ref _idle) != 0 && Interlocked.Exchange(ref _idle, 0) != 0)
            _wake.Set();
    }

    /// <summary>
    /// Sleeps until <paramref name="written"/>'s journal write has returned, or (if <paramref name="orQueued"/>)
    /// an operation is queued, or (with neither) the merger is told to stop.
    /// </summary>
    private void Sleep(CommitSlot? written, bool orQueued)
    {
        _wake.Reset();
        Interlocked.Exchange(ref _idle, 1);
        bool ready = (written is not null && written.Written) || (orQueued && !_queue.IsEmpty) || (written is null && _stopping);
        if (!ready)
            _wake.Wait();
        Volatile.Write(ref _idle, 0);
    }

    private void SleepUntilWritten(CommitSlot written)
    {
        while (!written.Written)
            Sleep(written, orQueued: false);
    }

    private void Run()
    {
        while (true)
        {
            while (_queue.IsEmpty)
            {
                if (_stopping && Volatile.Read(ref _enqueuers) == 0 && _queue.IsEmpty)
                    return;
                Sleep(null, orQueued: true);
            }
            RunChain();
        }
    }

    private void RunChain()
    {
        EnvironmentState published;
        try
        {
            published = _environment.EnterMergedWrites();
        }
        catch (Exception e)
        {
            FailQueued(e);
            return;
        }
        var current = NextSlot();
        CommitSlot? inflight = null;
        try
        {
            current.Open(_environment, published);
            current.BatchStarted = Stopwatch.GetTimestamp();
            while (true)
            {
                while (true)
                {
                    if (inflight is not null && inflight.Written)
                    {
                        if (!PublishWritten(inflight, current))
                            return;
                        int released = inflight.Released;
                        Recycle(ref inflight);
                        // The disk is idle: commit what has run, once the callers just released have had a
                        // moment to send their next operations (otherwise each caller would only make every
                        // other batch, and batches would hold half the callers).
                        if (!_gatherFruitless || !_queue.IsEmpty)
                            _gatherFruitless = GatherReturning(current, released) == 0;
                        if (current.Operations.Count > 0)
                            break;
                    }
                    if (IsFull(current))
                        break;
                    if (_queue.TryDequeue(out var queued))
                    {
                        _queueSlots.Release();
                        Execute(current, queued);
                        continue;
                    }
                    if (inflight is null)
                        break;
                    Sleep(inflight, orQueued: true);
                }
                if (inflight is not null)
                {
                    // Full while the previous write is still in flight.
                    SleepUntilWritten(inflight);
                    if (!PublishWritten(inflight, current))
                        return;
                    Recycle(ref inflight);
                }
                if (current.Operations.Count == 0)
                    break; // a batch that ran nothing ends the chain

                if (!Prepare(current))
                    continue; // its operations failed; the slot was reopened on the same base
                if (current.EntryLength == 0)
                {
                    // Nothing to write (the operations changed nothing): durable as soon as what came before is,
                    // and nothing is in flight.
                    Release(current);
                    var again = current.Base!;
                    current.Reset();
                    current.Open(_environment, again);
                    current.BatchStarted = Stopwatch.GetTimestamp();
                    continue;
                }
                current.WriteSubmitted = Stopwatch.GetTimestamp();
                _writer.Submit(current);
                inflight = current;
                var next = NextSlot();
                if (_environment.ScratchOverLimit)
                {
                    // Let the flusher catch up before taking more: finish what is in flight, then wait for
                    // scratch memory with nothing pinned but the published state.
                    SleepUntilWritten(inflight);
                    if (!PublishWritten(inflight, null))
                        return;
                    Recycle(ref inflight);
                    try
                    {
                        published = _environment.WaitForMergedScratch();
                    }
                    catch (Exception e)
                    {
                        FailQueued(e);
                        _environment.LeaveMergedWrites();
                        return;
                    }
                    next.Open(_environment, published);
                }
                else
                {
                    next.Open(_environment, current.Pending!);
                }
                current = next;
                current.BatchStarted = Stopwatch.GetTimestamp();
            }
            _environment.DiscardMergedTransaction(current.Low!);
            current.Reset();
            _environment.LeaveMergedWrites();
        }
        catch (Exception e)
        {
            // Not an operation's exception (those are caught where they run): the engine failed under the
            // merger (the environment failed while a transaction was being prepared, say). What is durable
            // is released; whatever else is held or queued fails with it, and the write lock goes. The thread
            // lives on to fail later arrivals. An in-flight transaction whose write succeeded was published and
            // its callers released by the journal writer; failing the slot then finds nothing left to fail.
            if (inflight is not null)
            {
                SleepUntilWritten(inflight);
                FailSlot(inflight, e);
            }
            FailSlot(current, e);
            FailQueued(e);
            _environment.LeaveMergedWrites();
        }
    }

    /// <summary>
    /// Runs queued operations until <paramref name="expected"/> of them have arrived, the batch is full, or
    /// the grace period (<see cref="StorageOptions.MergerReturnGrace"/>) passes, or half of it passes after
    /// an arrival with no other; returns how many arrived. The wait spins (yielding): a sleep and wake-up
    /// would cost more than it saves.
    /// </summary>
    private int GatherReturning(CommitSlot slot, int expected)
    {
        long end = Stopwatch.GetTimestamp() + _returnGraceTicks;
        long deadline = end;
        var spinner = new SpinWait();
        int arrived = 0;
        while (arrived < expected && !IsFull(slot))
        {
            if (_queue.TryDequeue(out var queued))
            {
                _queueSlots.Release();
                Execute(slot, queued);
                arrived++;
                // Released callers come back in a burst: a gap of half the grace ends it, so callers
                // that went elsewhere do not hold the batch for the whole grace.
                deadline = Math.Min(end, Stopwatch.GetTimestamp() + _returnGraceTicks / 2);
                continue;
            }
            if (Stopwatch.GetTimestamp() >= deadline)
                break;
            spinner.SpinOnce(sleep1Threshold: -1);
        }
        return arrived;
    }

    private CommitSlot NextSlot()
    {
        var slot = _slots[_nextSlot];
        _nextSlot ^= 1;
        return slot;
    }

    private bool IsFull(CommitSlot slot)
        => slot.Operations.Count > 0
            && (slot.Low!.DirtyPageTotal >= _maxTransactionPages || Stopwatch.GetTimestamp() - slot.BatchStarted >= _maxBatchTicks);

    private void Execute(CommitSlot slot, QueuedOperation queued)
    {
        var operation = queued.Operation;
        if (!operation.TryStart(queued.Token))
        {
            Statistics.RecordCancelled();
            return; // cancelled while queued: its caller has already been told
        }
        long wait = Stopwatch.GetTimestamp() - operation.EnqueuedAt;
        try
        {
            operation.Execute(slot.Transaction!);
        }
        catch (Exception e)
        {
            Statistics.RecordFailed();
            operation.Fail(e);
            RerunBatch(slot);
            return;
        }
        slot.Operations.Add(operation);
        slot.QueueWaitTicks += wait;
        slot.MaxQueueWaitTicks = Math.Max(slot.MaxQueueWaitTicks, wait);
    }

    /// <summary>
    /// An operation threw: its partial changes may be anywhere in the transaction, so the transaction is
    /// dropped and the operations that had succeeded run again in a fresh one on the same base. One that
    /// throws on the re-run fails too, and the batch starts over without it.
    /// </summary>
    private void RerunBatch(CommitSlot slot)
    {
        while (true)
        {
            slot.Reruns++;
            slot.Restart(_environment);
            var operations = slot.Operations;
            int failedAt = -1;
            for (int i = 0; i < operations.Count; i++)
            {
                try
                {
                    operations[i].Execute(slot.Transaction!);
                }
                catch (Exception e)
                {
                    Statistics.RecordFailed();
                    operations[i].Fail(e);
                    failedAt = i;
                    break;
                }
            }
            if (failedAt < 0)
                return;
            operations.RemoveAt(failedAt);
        }
    }

    /// <summary>Builds the journal entry; false if that failed (its operations fail, the slot restarts on the same base).</summary>
    private bool Prepare(CommitSlot slot)
    {
        try
        {
            _environment.PrepareMergedCommit(slot);
            return true;
        }
        catch (EnvironmentFailedException)
        {
            throw;
        }
        catch (Exception e)
        {
            foreach (var operation in slot.Operations)
            {
                Statistics.RecordFailed();
                operation.Fail(e);
            }
            slot.Operations.Clear();
            slot.Restart(_environment);
            slot.BatchStarted = Stopwatch.GetTimestamp();
            return false;
        }
    }

    /// <summary>
    /// The in-flight transaction's write returned, and the journal writer published it (<see cref="OnDurable"/>):
    /// move the writer and the open transaction onto the published state. False if the write failed:
    /// everything held and queued fails, and the write lock goes.
    /// </summary>
    private bool PublishWritten(CommitSlot written, CommitSlot? open)
    {
        if (written.WriteError is not null)
        {
            var failure = _environment.FailMergedWrite(written.WriteError);
            if (open is not null)
                FailSlot(open, failure);
            FailSlot(written, failure);
            FailQueued(failure);
            _environment.LeaveMergedWrites();
            return false;
        }
        var published = _environment.AdoptPublishedMergedCommit();
        open?.Rebase(published);
        return true;
    }

    /// <summary>
    /// On the journal writer's thread, as soon as the slot's entry is durable: publishes the transaction and
    /// releases its callers, so they come back for the next batch without waiting for the merger to wake.
    /// </summary>
    private void OnDurable(CommitSlot slot)
    {
        _environment.PublishMergedCommit(slot);
        slot.Released = slot.Operations.Count;
        Release(slot);
    }

    /// <summary>A slot whose transaction is published and whose callers are released: ready for reuse.</summary>
    private static void Recycle(ref CommitSlot? slot)
    {
        slot!.Reset();
        slot = null;
    }

    /// <summary>Completes a durable transaction's operations in the order they ran, and records the batch.</summary>
    private void Release(CommitSlot slot)
    {
        long now = Stopwatch.GetTimestamp();
        Statistics.RecordBatch(slot.TransactionId, slot.Operations.Count, slot.QueueWaitTicks, slot.MaxQueueWaitTicks,
            (slot.EntryLength == 0 ? now : slot.WriteSubmitted) - slot.BatchStarted,
            slot.EntryLength == 0 ? 0 : slot.WriteCompleted - slot.WriteSubmitted, slot.Reruns);
        foreach (var operation in slot.Operations)
            operation.Succeed();
        slot.Operations.Clear();
    }

    private void FailSlot(CommitSlot slot, Exception failure)
    {
        foreach (var operation in slot.Operations)
            operation.Fail(failure);
        slot.Operations.Clear();
        if (slot.Low is not null && !slot.MayBePublished)
            _environment.DiscardMergedTransaction(slot.Low);
        slot.Reset();
    }

    /// <summary>Fails every operation still queued (the environment failed, or cannot take writes now).</summary>
    private void FailQueued(Exception failure)
    {
        while (_queue.TryDequeue(out var queued))
        {
            _queueSlots.Release();
            if (queued.Operation.TryStart(queued.Token))
                queued.Operation.Fail(failure);
        }
    }

    /// <summary>
    /// Stops taking operations, runs and commits every one already queued (or fails them, if the
    /// environment has failed), and ends the threads.
    /// </summary>
    public void Stop()
    {
        _stopping = true;
        // Full fence: the flag must be visible before the count is read (an enqueuer increments the count,
        // a full fence too, before it reads the flag), or both could miss each other and an operation could
        // be queued after the merger has drained and gone.
        Interlocked.MemoryBarrier();
        SpinWait.SpinUntil(() => Volatile.Read(ref _enqueuers) == 0);
        _wake.Set();
        if (Thread.CurrentThread != _thread)
            _thread.Join();
    }

    public void Dispose()
    {
        Stop();
        _writer.Dispose();
        foreach (var slot in _slots)
            slot.Dispose();
        _wake.Dispose();
        _queueSlots.Dispose();
    }
}
