using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Errors;
using Cairn.Paging;
using Microsoft.Extensions.Logging;

namespace Cairn.Transactions;

/// <summary>
/// Back-pressure between the writer and the flusher. Committed page versions live in scratch memory
/// until the flusher writes them to the data file; when they pass the limit, the writer asks for a
/// flush and waits here until the flusher's progress brings them under it (or gives up after the
/// configured timeout with a <see cref="ScratchMemoryExhaustedException"/> that says why).
/// </summary>
internal sealed class ScratchBudget(ScratchAllocator scratch, long limit, TimeSpan timeout, FailureLatch failure, ILogger logger)
{
    private static readonly TimeSpan PollInterval = TimeSpan.FromMilliseconds(50);

    // Writers waiting for scratch memory sleep on this monitor; every flush, and a failure, pulses it.
    private readonly object _progressGate = new();
    private int _flushRequested;

    /// <summary>Wakes the flusher when a writer needs memory back (set once, by the flusher).</summary>
    public Action? WakeFlusher { get; set; }

    public bool OverLimit => scratch.BytesInUse >= limit;

    /// <summary>Whether a writer asked for a flush since the flusher last looked (and forgets the request).</summary>
    public bool TakeFlushRequest() => Interlocked.Exchange(ref _flushRequested, 0) != 0;

    /// <summary>The flusher freed memory (or the environment failed): waiting writers look again.</summary>
    public void NotifyProgress()
    {
        lock (_progressGate)
            Monitor.PulseAll(_progressGate);
    }

    /// <summary>
    /// On the writer, when scratch memory is over its limit: asks the flusher to run and waits until
    /// <paramref name="reclaim"/> brings memory back under the limit, or throws after the timeout.
    /// </summary>
    public void WaitForRoom(Action reclaim, StatePublisher states)
    {
        Log.ScratchPressure(logger, scratch.BytesInUse, limit);
        long started = Stopwatch.GetTimestamp();
        while (true)
        {
            reclaim();
            if (!OverLimit)
                return;
            failure.ThrowIfFailed();
            var remaining = timeout - Stopwatch.GetElapsedTime(started);
            if (remaining <= TimeSpan.Zero)
                throw new ScratchMemoryExhaustedException(scratch.BytesInUse, limit, timeout,
                    states.OldestReaderTransactionId(), states.Current.TransactionId);
            Interlocked.Exchange(ref _flushRequested, 1);
            WakeFlusher?.Invoke();
            lock (_progressGate)
                Monitor.Wait(_progressGate, remaining < PollInterval ? remaining : PollInterval);
        }
    }
}
