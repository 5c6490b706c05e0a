using Cairn.Errors;
using Cairn.FreeSpace;
using Cairn.Transactions;

namespace Cairn.Commit;

/// <summary>
/// The environment's one writer. Whoever writes holds it: a <c>BeginWrite</c> transaction from begin to
/// commit or abort, the transaction merger for a whole chain of merged transactions, <c>Verify</c> while
/// it checks. The holder reads through the writer's own reader slot, so nothing it reads is reclaimed.
/// </summary>
internal sealed class WriterLock(StatePublisher states, FreeSpaceMap freeSpace, ScratchBudget scratch, FailureLatch failure) : IDisposable
{
    // The write lock: one holder at a time (see the summary for who holds it and for how long). Its waiters
    // sleep instead of spinning, and a durable commit with others waiting lets it go before its write.
    private readonly HandoffLock _lock = new();
    private readonly int _slot = states.Readers.Reserve();

    /// <summary>Runs before a writer waits for scratch memory (the lazy commits' queue is written, so the flusher can move their pages).</summary>
    public Action? BeforeScratchWait { get; set; }

    /// <summary>The writer's reader slot (which the close counts apart from readers).</summary>
    public int ReaderSlot => _slot;

    /// <summary>Whether another thread is waiting for the lock (a <c>BeginWrite</c> caller or the merger).</summary>
    public bool OthersWaiting => _lock.Waiting > 0;

    public bool TryAcquire(TimeSpan timeout) => _lock.TryEnter(timeout);

    public void Acquire() => TryAcquire(Timeout.InfiniteTimeSpan);

    public void Release() => _lock.Exit();

    /// <summary>
    /// With the lock held: refuses a failed environment, waits for scratch memory if it is over its limit,
    /// makes freed pages no reader sees allocatable, and pins the newest state, which it returns. On an
    /// exception the lock is released.
    /// </summary>
    public EnvironmentState StartWriting()
    {
        try
        {
            failure.ThrowIfFailed();
            if (scratch.OverLimit)
            {
                BeforeScratchWait?.Invoke();
                scratch.WaitForRoom(Reclaim, states);
            }
            Reclaim();
            return states.Pin(_slot);
        }
        catch (Exception first)
        {
            try
            {
                StopWriting();
            }
            catch (Exception second)
            {
                // Both matter: the reason the writer could not start, and why letting go failed too.
                throw new AggregateException(first, second);
            }
            throw;
        }
    }

    /// <summary>With nothing in flight: waits until scratch memory is under its limit, and returns the state to go on from.</summary>
    /// <remarks>
    /// The writer's slot goes idle while it waits, as it is when <see cref="StartWriting"/> waits: pinned
    /// on the state before the transaction it just published (where a merged chain leaves it), or on any
    /// state the flusher has since replaced, it would keep the flusher from flushing that transaction's
    /// pages or keep the flushed versions from being freed, and the wait would last until the timeout.
    /// </remarks>
    public EnvironmentState WaitForScratch()
    {
        states.Readers.MarkIdle(_slot);
        scratch.WaitForRoom(Reclaim, states);
        return states.Pin(_slot);
    }

    /// <summary>Moves the writer's pin to the newest published state (a merged commit was just published).</summary>
    public EnvironmentState PinNewest() => states.Pin(_slot);

    /// <summary>Reclaims what no reader reaches and makes freed pages allocatable (only the writer owns the free-space mirror).</summary>
    public void Reclaim() => states.ReclaimForWriter(freeSpace);

    /// <summary>Unpins the writer's slot and releases the lock.</summary>
    public void StopWriting()
    {
        states.Readers.MarkIdle(_slot);
        _lock.Exit();
    }

    public void Dispose()
    {
        // Nothing to release: the lock's waiters own their signals (one per thread).
    }
}
