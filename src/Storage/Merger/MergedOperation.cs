namespace Cairn.Merger;

/// <summary>
/// One caller's operation waiting in, or running in, the transaction merger. Instances are pooled and
/// reused: each use gets a new token, and the queue carries the token it was enqueued with, so a stale
/// queue entry (an operation cancelled, completed and reused since) is recognised and skipped.
/// </summary>
/// <remarks>
/// The control word packs the token and the state: <c>token &lt;&lt; 2 | state</c>. Starting (by the merger)
/// and cancelling (by the caller's token) are compare-exchanges on it, so exactly one of them wins.
/// </remarks>
internal abstract class MergedOperation<TTransaction> : IThreadPoolWorkItem
{
    private const long Queued = 0;
    private const long Running = 1;
    private const long Cancelled = 2;

    private long _control;
    private CancellationTokenRegistration _registration;
    private CancellationToken _cancellationToken;

    /// <summary>When the caller enqueued it (Stopwatch ticks), for the queue-wait statistics.</summary>
    public long EnqueuedAt { get; private set; }

    public long Token => Volatile.Read(ref _control) >> 2;

    /// <summary>Runs the caller's delegate inside the merged transaction (again, if its batch is re-run).</summary>
    public abstract void Execute(TTransaction transaction);

    private Exception? _error;

    /// <summary>
    /// Set for a caller that blocks its thread until the operation completes (the blocking <c>Write</c>), instead
    /// of awaiting its task; completion sets it once the result is in place. Cleared by <see cref="Recycle"/>.
    /// </summary>
    public ManualResetEventSlim? Waiter { get; set; }

    /// <summary>
    /// Completes the caller's task with the operation's result (its transaction is durable), on a
    /// thread-pool thread: the operation object is itself the work item, so completing allocates
    /// nothing, and the caller's continuation never runs on the merger's thread.
    /// </summary>
    public void Succeed()
    {
        _error = null;
        Complete();
    }

    /// <summary>Completes the caller's task with <paramref name="error"/>, on a thread-pool thread.</summary>
    public void Fail(Exception error)
    {
        _error = error;
        Complete();
    }

    /// <summary>
    /// A blocked caller (<see cref="Waiter"/>) is woken right here: it runs no continuation on this thread, and
    /// needing no thread-pool thread to wake it means a host that blocks its pool threads in <c>Write</c> cannot
    /// starve its own completions. Awaited tasks complete on the thread pool.
    /// </summary>
    private void Complete()
    {
        if (Waiter is not null)
            ((IThreadPoolWorkItem)this).Execute();
        else
            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
    }

    void IThreadPoolWorkItem.Execute()
    {
        var error = _error;
        _error = null;
        // Read first: without a waiter, the continuation SetResult runs may recycle this object for another caller.
        var waiter = Waiter;
        if (error is null)
            SetResult();
        else
            SetException(error);
        waiter?.Set();
    }

    /// <summary>Runs the caller's continuation inline (this is already a thread-pool thread).</summary>
    protected abstract void SetResult();

    protected abstract void SetException(Exception error);

    /// <summary>Called by the caller's thread once the operation is set up and about to be queued.</summary>
    public void Arm(long enqueuedAt, CancellationToken cancellationToken)
    {
        EnqueuedAt = enqueuedAt;
        _cancellationToken = cancellationToken;
        if (cancellationToken.CanBeCanceled)
            _registration = cancellationToken.UnsafeRegister(static state => ((MergedOperation<TTransaction>)state!).OnCancelled(), this);
    }

    /// <summary>The merger takes the operation: false if it was cancelled (or the entry is stale).</summary>
    public bool TryStart(long token)
    {
        if (Interlocked.CompareExchange(ref _control, token << 2 | Running, token << 2 | Queued) != (token << 2 | Queued))
            return false;
        // Once running, cancellation no longer applies; Dispose waits for a callback already under way.
        _registration.Dispose();
        return true;
    }

    private void OnCancelled()
    {
        long token = Token;
        if (Interlocked.CompareExchange(ref _control, token << 2 | Cancelled, token << 2 | Queued) == (token << 2 | Queued))
            Fail(new OperationCanceledException("The operation was cancelled before the merger ran it.", _cancellationToken));
    }

    /// <summary>After the caller has read the result: a new token, ready to be pooled.</summary>
    protected void Recycle()
    {
        _registration.Dispose();
        _registration = default;
        _cancellationToken = default;
        Waiter = null;
        Volatile.Write(ref _control, ((Volatile.Read(ref _control) >> 2) + 1) << 2 | Queued);
    }
}

/// <summary>An operation in the merger's queue, with the token of the use it was queued for.</summary>
internal readonly record struct QueuedOperation<TTransaction>(MergedOperation<TTransaction> Operation, long Token);
