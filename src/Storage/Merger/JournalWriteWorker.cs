namespace Cairn.Merger;

/// <summary>
/// The merger's journal writer: a thread that performs one merged transaction's durable journal write at
/// a time, so the merger can execute the next batch meanwhile. A write that succeeds is handed to
/// <c>durable</c> on this thread at once (which publishes it and releases its callers: they need not wait
/// for the merger to wake up). It reports through the slot (<see cref="CommitSlot{T}.Written"/> last) and then
/// calls <c>completed</c> to wake the merger.
/// </summary>
internal sealed class JournalWriteWorker<TTransaction> : IDisposable where TTransaction : class
{
    private readonly Action<CommitSlot<TTransaction>> _durable;
    private readonly Action _completed;
    // Barely spins: a submission comes about one journal write plus one batch apart, and on a 2-core machine a
    // spinning writer takes the CPU the merger and the released callers need meanwhile.
    private readonly ManualResetEventSlim _submitted = new(false, spinCount: 1);
    private readonly Thread _thread;
    private CommitSlot<TTransaction>? _slot;
    private volatile bool _stopping;

    public JournalWriteWorker(Action<CommitSlot<TTransaction>> durable, Action completed)
    {
        _durable = durable;
        _completed = completed;
        _thread = new Thread(Run) { IsBackground = true, Name = "cairn-journal-writer" };
        _thread.Start();
    }

    /// <summary>Starts writing the slot's entry; at most one is in flight.</summary>
    public void Submit(CommitSlot<TTransaction> slot)
    {
        if (Interlocked.CompareExchange(ref _slot, slot, null) is not null)
            throw new InvalidOperationException("A journal write is already in flight.");
        _submitted.Set();
    }

    private void Run()
    {
        while (true)
        {
            _submitted.Wait();
            // Reset before the slot is taken: the next submission comes only after this write is reported.
            _submitted.Reset();
            var slot = Interlocked.Exchange(ref _slot, null);
            if (slot is null)
            {
                if (_stopping)
                    return;
                continue;
            }
            WriteAndReport(slot);
        }
    }

    /// <summary>
    /// Writes the slot's entry on the calling thread (the merger's), as this thread would: when nothing is queued
    /// behind the batch, handing the write over buys no overlap and costs two thread wake-ups per write.
    /// </summary>
    public void WriteHere(CommitSlot<TTransaction> slot) => WriteAndReport(slot);

    private void WriteAndReport(CommitSlot<TTransaction> slot)
    {
        try
        {
            slot.Transaction.Write();
        }
        catch (Exception e)
        {
            slot.WriteError = e;
        }
        slot.WriteCompleted = System.Diagnostics.Stopwatch.GetTimestamp();
        if (slot.WriteError is null)
        {
            try
            {
                _durable(slot);
            }
            catch (Exception e)
            {
                // Reported as a failed write, so the merger fails the environment; but readers may already
                // see the transaction's pages, so they must never be freed (CommitSlot.MayBePublished).
                slot.MayBePublished = true;
                slot.WriteError = e;
            }
        }
        slot.Written = true;
        _completed();
    }

    public void Dispose()
    {
        _stopping = true;
        _submitted.Set();
        _thread.Join();
        _submitted.Dispose();
    }
}
