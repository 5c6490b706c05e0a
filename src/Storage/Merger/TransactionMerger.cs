using System.Diagnostics;
using Cairn.Diagnostics;

namespace Cairn.Merger;

/// <summary>
/// Runs callers' write operations on one thread, many per transaction, one journal write per
/// transaction, and executes the next batch while the previous one is being written (early lock
/// release): when transaction N's entry is handed to the journal writer, N+1 opens on top of N's
/// not-yet-published state and takes operations until N is durable. Then N is published, its callers
/// are released (in commit order, continuations on the thread pool) and N+1 commits if it ran anything.
/// A batch that ran nothing ends the chain and lets the write lock go. A batch submitted with nothing queued
/// behind it (a lone caller, or every caller already in it) is written on the merger's own thread: there is
/// nothing to run meanwhile, and the hand-over would cost two thread wake-ups per write.
/// </summary>
/// <remarks>
/// The write lock is held from a chain's first operation to its end, so a <c>BeginWrite</c> caller waits
/// for the merger to go idle, and the merger waits for such a transaction to end. Admission, back-pressure
/// and stop are the <see cref="MergerQueue{T}"/>'s; the stages of each commit are the pipeline's.
/// </remarks>
internal sealed class TransactionMerger<TTransaction> : IDisposable where TTransaction : class
{
    private readonly IMergerPipeline<TTransaction> _pipeline;
    private readonly MergerSettings _settings;
    private readonly CommitSlot<TTransaction>[] _slots;
    private readonly JournalWriteWorker<TTransaction> _writer;
    private readonly Thread _thread;
    private int _nextSlot;
    // The last wait for released callers saw none come back (they do something else between writes): the
    // next wait is skipped unless an operation is already queued, so sparse writers cost no spinning.
    private bool _gatherFruitless;

    public TransactionMerger(IMergerPipeline<TTransaction> pipeline, MergerSettings settings, MergerStatistics statistics)
    {
        _pipeline = pipeline;
        _settings = settings;
        Statistics = statistics;
        Queue = new MergerQueue<TTransaction>(settings.MaxQueuedOperations, settings.QueueTimeout);
        _slots = [new(pipeline.CreateTransaction()), new(pipeline.CreateTransaction())];
        _writer = new JournalWriteWorker<TTransaction>(OnDurable, Queue.Wake);
        _thread = new Thread(Run) { IsBackground = true, Name = "cairn-merger" };
        _thread.Start();
    }

    public MergerQueue<TTransaction> Queue { get; }

    public MergerStatistics Statistics { get; }

    /// <summary>True on the merger's own thread (inside an operation), where waiting for an operation would wait for itself.</summary>
    public bool IsMergerThread => Thread.CurrentThread == _thread;

    private void Run()
    {
        while (true)
        {
            while (Queue.IsEmpty)
            {
                if (Queue.IsDrained)
                    return;
                Queue.Sleep(null, orQueued: true);
            }
            RunChain();
        }
    }

    /// <summary>One chain of transactions under the write lock, from the first queued operation until a batch runs nothing.</summary>
    private void RunChain()
    {
        try
        {
            _pipeline.EnterWrites();
        }
        catch (Exception e)
        {
            Queue.FailAll(e);
            return;
        }
        var current = NextSlot();
        CommitSlot<TTransaction>? inflight = null;
        try
        {
            RunChainLocked(ref current, ref inflight);
        }
        catch (Exception e)
        {
            // Not an operation's exception (those are caught where they run): the engine failed under the
            // merger (a journal write failed, or the environment failed while a transaction was prepared).
            // What is durable is released; whatever else is held or queued fails with it. The thread lives on
            // to fail later arrivals. An in-flight transaction whose write succeeded was published and its
            // callers released by the journal writer; failing the slot then finds nothing left to fail.
            if (inflight is not null)
            {
                SleepUntilWritten(inflight);
                FailSlot(inflight, e);
            }
            FailSlot(current, e);
            Queue.FailAll(e);
        }
        finally
        {
            _pipeline.LeaveWrites();
        }
    }

    private void RunChainLocked(ref CommitSlot<TTransaction> current, ref CommitSlot<TTransaction>? inflight)
    {
        current.OpenOnPublished(Stopwatch.GetTimestamp());
        while (true)
        {
            FillBatch(current, ref inflight);
            if (inflight is not null)
            {
                // Full while the previous write is still in flight.
                SleepUntilWritten(inflight);
                PublishWritten(inflight, current);
                Recycle(ref inflight);
            }
            if (current.Operations.Count == 0)
                break; // a batch that ran nothing ends the chain

            if (!Prepare(current))
                continue; // its operations failed; the slot was reopened on the same base
            if (!current.HasEntry)
            {
                // Nothing to write (the operations changed nothing): durable as soon as what came before is,
                // and nothing is in flight.
                Release(current);
                current.Reset();
                current.OpenOnPublished(Stopwatch.GetTimestamp());
                continue;
            }
            current.WriteSubmitted = Stopwatch.GetTimestamp();
            // With nothing queued there is nothing to run meanwhile (a lone caller, or every caller already in
            // this batch): the write goes out from this thread, saving the writer's wake-up and ours after it.
            if (_settings.WriteOnMergerWhenIdle && Queue.IsEmpty)
                _writer.WriteHere(current);
            else
                _writer.Submit(current);
            inflight = current;
            var next = NextSlot();
            if (_pipeline.ScratchOverLimit)
            {
                // Let the flusher catch up before taking more: finish what is in flight, then wait for
                // scratch memory with nothing pinned but the published state.
                SleepUntilWritten(inflight);
                PublishWritten(inflight, null);
                Recycle(ref inflight);
                _pipeline.WaitForScratch();
                current = next;
                current.OpenOnPublished(Stopwatch.GetTimestamp());
            }
            else
            {
                next.OpenOnTopOf(current, Stopwatch.GetTimestamp());
                current = next;
            }
        }
        current.Transaction.Discard();
        current.Reset();
    }

    /// <summary>
    /// Runs queued operations in <paramref name="current"/> until it is full, or nothing is queued and nothing
    /// is in flight, or the in-flight write returned and <paramref name="current"/> holds operations to commit.
    /// </summary>
    private void FillBatch(CommitSlot<TTransaction> current, ref CommitSlot<TTransaction>? inflight)
    {
        while (true)
        {
            if (inflight is not null && inflight.Written)
            {
                PublishWritten(inflight, current);
                int released = inflight.Released;
                Recycle(ref inflight);
                // The disk is idle: commit what has run, once the callers just released have had a
                // moment to send their next operations (otherwise each caller would only make every
                // other batch, and batches would hold half the callers).
                if (!_gatherFruitless || !Queue.IsEmpty)
                    _gatherFruitless = GatherReturning(current, released) == 0;
                if (current.Operations.Count > 0)
                    return;
            }
            if (IsFull(current))
                return;
            if (Queue.TryDequeue(out var queued))
            {
                Execute(current, queued);
                continue;
            }
            if (inflight is null)
                return;
            Queue.Sleep(inflight, orQueued: true);
        }
    }

    private void SleepUntilWritten(CommitSlot<TTransaction> written)
    {
        while (!written.Written)
            Queue.Sleep(written, orQueued: false);
    }

    /// <summary>
    /// Runs queued operations until <paramref name="expected"/> of them have arrived, the batch is full, or
    /// the grace period (<see cref="MergerSettings.ReturnGrace"/>) passes, or half of it passes after
    /// an arrival with no other; returns how many arrived. The wait spins (yielding): a sleep and wake-up
    /// would cost more than it saves.
    /// </summary>
    private int GatherReturning(CommitSlot<TTransaction> slot, int expected)
    {
        long grace = _settings.ReturnGraceTicks;
        long end = Stopwatch.GetTimestamp() + grace;
        long deadline = end;
        var spinner = new SpinWait();
        int arrived = 0;
        while (arrived < expected && !IsFull(slot))
        {
            if (Queue.TryDequeue(out var queued))
            {
                Execute(slot, queued);
                arrived++;
                // Released callers come back in a burst: a gap of half the grace ends it, so callers
                // that went elsewhere do not hold the batch for the whole grace.
                deadline = Math.Min(end, Stopwatch.GetTimestamp() + grace / 2);
                continue;
            }
            if (Stopwatch.GetTimestamp() >= deadline)
                break;
            spinner.SpinOnce(sleep1Threshold: -1);
        }
        return arrived;
    }

    private CommitSlot<TTransaction> NextSlot()
    {
        var slot = _slots[_nextSlot];
        _nextSlot ^= 1;
        return slot;
    }

    private bool IsFull(CommitSlot<TTransaction> slot)
        => slot.Operations.Count > 0
            && (slot.Transaction.DirtyPages >= _settings.MaxTransactionPages
                || Stopwatch.GetTimestamp() - slot.BatchStarted >= _settings.MaxBatchTicks);

    private void Execute(CommitSlot<TTransaction> slot, QueuedOperation<TTransaction> queued)
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
            operation.Execute(slot.Transaction.Transaction);
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
        Statistics.RecordQueueWait(wait);
    }

    /// <summary>
    /// An operation threw: its partial changes may be anywhere in the transaction, so the transaction is
    /// dropped and the operations that had succeeded run again in a fresh one on the same base. One that
    /// throws on the re-run fails too, and the batch starts over without it.
    /// </summary>
    private void RerunBatch(CommitSlot<TTransaction> slot)
    {
        while (true)
        {
            slot.Reruns++;
            slot.Transaction.Restart();
            var operations = slot.Operations;
            int failedAt = -1;
            for (int i = 0; i < operations.Count; i++)
            {
                try
                {
                    operations[i].Execute(slot.Transaction.Transaction);
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

    /// <summary>The prepare stage; false if it failed (its operations fail, the slot restarts on the same base).</summary>
    private bool Prepare(CommitSlot<TTransaction> slot)
    {
        try
        {
            slot.HasEntry = slot.Transaction.Prepare();
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
            slot.Transaction.Restart();
            slot.BatchStarted = Stopwatch.GetTimestamp();
            return false;
        }
    }

    /// <summary>
    /// The in-flight transaction's write returned, and the journal writer published it (<see cref="OnDurable"/>):
    /// move the open transaction onto the published state. Throws the environment's failure if the write
    /// failed (the chain then fails everything held and queued), except for a full disk, which the journal left
    /// with nothing of the entry (<see cref="RollBackDiskFull"/>).
    /// </summary>
    private void PublishWritten(CommitSlot<TTransaction> written, CommitSlot<TTransaction>? open)
    {
        if (written.WriteError is DiskFullException full && !written.MayBePublished)
        {
            RollBackDiskFull(written, open, full);
            return;
        }
        if (written.WriteError is not null)
            throw _pipeline.FailWrite(written.WriteError);
        open?.Transaction.Rebase();
    }

    /// <summary>
    /// The written transaction's entry found the disk full (in its journal, or at a new journal file) and nothing
    /// of it can be replayed: it is rolled back as <c>Commit</c> rolls one back, and only its callers fail. The
    /// open transaction stood on it, so its changes go first (its allocations were taken after the written one's),
    /// then its operations run again on the published state: they have not met the disk yet.
    /// </summary>
    private void RollBackDiskFull(CommitSlot<TTransaction> written, CommitSlot<TTransaction>? open, DiskFullException full)
    {
        open?.Transaction.Discard();
        written.Transaction.Discard();
        written.Transaction.Expire();
        foreach (var operation in written.Operations)
        {
            Statistics.RecordFailed();
            operation.Fail(full);
        }
        written.Operations.Clear();
        if (open is null)
            return;
        open.Transaction.Rebase();
        RerunBatch(open);
    }

    /// <summary>
    /// On the journal writer's thread, as soon as the slot's entry is durable: publishes the transaction and
    /// releases its callers, so they come back for the next batch without waiting for the merger to wake.
    /// </summary>
    private void OnDurable(CommitSlot<TTransaction> slot)
    {
        slot.Transaction.Publish();
        slot.Released = slot.Operations.Count;
        Release(slot);
    }

    /// <summary>A slot whose transaction is published and whose callers are released: ready for reuse.</summary>
    private static void Recycle(ref CommitSlot<TTransaction>? slot)
    {
        slot!.Reset();
        slot = null;
    }

    /// <summary>Completes a durable transaction's operations in the order they ran, and records the batch.</summary>
    private void Release(CommitSlot<TTransaction> slot)
    {
        long now = Stopwatch.GetTimestamp();
        Statistics.RecordBatch(slot.Transaction.TransactionId, slot.Operations.Count, slot.QueueWaitTicks, slot.MaxQueueWaitTicks,
            (slot.HasEntry ? slot.WriteSubmitted : now) - slot.BatchStarted,
            slot.HasEntry ? slot.WriteCompleted - slot.WriteSubmitted : 0, slot.Reruns);
        slot.Transaction.Expire();
        foreach (var operation in slot.Operations)
            operation.Succeed();
        slot.Operations.Clear();
    }

    private static void FailSlot(CommitSlot<TTransaction> slot, Exception failure)
    {
        slot.Transaction.Expire();
        foreach (var operation in slot.Operations)
            operation.Fail(failure);
        slot.Operations.Clear();
        if (slot.IsOpen && !slot.MayBePublished)
            slot.Transaction.Discard();
        slot.Reset();
    }

    /// <summary>
    /// Stops taking operations, runs and commits every one already queued (or fails them, if the
    /// environment has failed), and ends the threads.
    /// </summary>
    public void Stop()
    {
        Queue.Close();
        if (Thread.CurrentThread != _thread)
            _thread.Join();
    }

    public void Dispose()
    {
        Stop();
        _writer.Dispose();
        foreach (var slot in _slots)
            slot.Dispose();
        Queue.Dispose();
    }
}
