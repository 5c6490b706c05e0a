namespace Cairn.Merger;

/// <summary>
/// One merged transaction from its first operation until its callers are released. The merger has two
/// and alternates them: one being written to the journal, the next one executing on top of it. Each
/// keeps its engine transaction (and so its buffers) from commit to commit, so neither allocates.
/// </summary>
internal sealed class CommitSlot<TTransaction>(IMergedTransaction<TTransaction> transaction) : IDisposable where TTransaction : class
{
    private volatile bool _written;

    public IMergedTransaction<TTransaction> Transaction { get; } = transaction;

    /// <summary>The operations this transaction holds, in the order they ran.</summary>
    public List<MergedOperation<TTransaction>> Operations { get; } = new(256);

    /// <summary>Opened and not yet reset: its engine transaction holds pages or allocations.</summary>
    public bool IsOpen { get; private set; }

    public long BatchStarted { get; set; }

    public long QueueWaitTicks { get; set; }

    public long MaxQueueWaitTicks { get; set; }

    public int Reruns { get; set; }

    /// <summary>Prepared with an entry to write (false: it changed nothing).</summary>
    public bool HasEntry { get; set; }

    public long WriteSubmitted { get; set; }

    // Filled by the journal writer.
    public Exception? WriteError { get; set; }

    public long WriteCompleted { get; set; }

    /// <summary>
    /// The write succeeded but publishing it failed part way: its pages may be in the published state, so a
    /// failure must not free them (the environment has failed; they are never reused).
    /// </summary>
    public bool MayBePublished { get; set; }

    /// <summary>How many callers the journal writer released when the write returned.</summary>
    public int Released { get; set; }

    /// <summary>Set last by the journal writer (after the error, if any), read by the merger.</summary>
    public bool Written
    {
        get => _written;
        set => _written = value;
    }

    public void OpenOnPublished(long now)
    {
        Transaction.OpenOnPublished();
        Opened(now);
    }

    public void OpenOnTopOf(CommitSlot<TTransaction> inflight, long now)
    {
        Transaction.OpenOnTopOf(inflight.Transaction);
        Opened(now);
    }

    private void Opened(long now)
    {
        IsOpen = true;
        BatchStarted = now;
    }

    /// <summary>Forgets everything but the engine transaction's buffers: ready for the next transaction.</summary>
    public void Reset()
    {
        Operations.Clear();
        Transaction.Reset();
        IsOpen = false;
        HasEntry = false;
        WriteError = null;
        _written = false;
        Released = 0;
        MayBePublished = false;
        QueueWaitTicks = 0;
        MaxQueueWaitTicks = 0;
        Reruns = 0;
    }

    public void Dispose() => Transaction.Dispose();
}
