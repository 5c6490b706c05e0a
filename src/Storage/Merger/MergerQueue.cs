using System.Collections.Concurrent;
using System.Diagnostics;

namespace Cairn.Merger;

/// <summary>
/// The merger's front door: callers' operations wait here, in order, for the merger's thread. It bounds
/// how many may wait (a full queue makes callers wait for room, then fail with
/// <see cref="MergerQueueFullException"/>), puts the merger's thread to sleep when there is nothing to do
/// and wakes it when an operation arrives or a journal write returns, and closes for good at stop.
/// </summary>
internal sealed class MergerQueue<TTransaction> : IDisposable where TTransaction : class
{
    private readonly ConcurrentQueue<QueuedOperation<TTransaction>> _queue = new();
    // Room in the queue: a caller takes a slot before it enqueues, the merger gives it back when it dequeues.
    private readonly SemaphoreSlim _room;
    // The merger's thread sleeps on this; an enqueue, a finished journal write or a stop sets it.
    private readonly ManualResetEventSlim _wake = new(false);
    private readonly int _capacity;
    private readonly TimeSpan _roomTimeout;
    private int _idle;
    private int _enqueuers;
    private volatile bool _stopping;

    public MergerQueue(int capacity, TimeSpan roomTimeout)
    {
        _capacity = capacity;
        _roomTimeout = roomTimeout;
        _room = new SemaphoreSlim(capacity, capacity);
    }

    public bool IsEmpty => _queue.IsEmpty;

    /// <summary>Operations queued or being queued (slots of room taken and not yet given back): for a gauge.</summary>
    public int Depth => _capacity - _room.CurrentCount;

    /// <summary>Stopping, and no caller is still part way through an enqueue, and nothing is queued: the merger may end.</summary>
    public bool IsDrained => _stopping && Volatile.Read(ref _enqueuers) == 0 && _queue.IsEmpty;

    /// <summary>Queues the operation, or returns false when the queue is full (the caller then uses <see cref="WaitForRoomAsync"/>).</summary>
    /// <exception cref="ObjectDisposedException">The merger is stopping.</exception>
    public bool TryEnqueue(MergedOperation<TTransaction> operation, CancellationToken cancellationToken)
    {
        if (!_room.Wait(0))
            return false;
        Enqueue(operation, cancellationToken);
        return true;
    }

    /// <summary>Waits (up to the configured timeout) for room in the queue, then queues the operation.</summary>
    public async ValueTask WaitForRoomAsync(MergedOperation<TTransaction> operation, CancellationToken cancellationToken)
    {
        if (!await _room.WaitAsync(_roomTimeout, cancellationToken).ConfigureAwait(false))
            throw new MergerQueueFullException(_capacity, _roomTimeout);
        Enqueue(operation, cancellationToken);
    }

    /// <summary>
    /// <see cref="WaitForRoomAsync"/> for a caller that blocks its thread anyway (the blocking <c>Write</c>): no task.
    /// The operation is failed (which wakes its caller) instead of the error being thrown.
    /// </summary>
    public void WaitForRoom(MergedOperation<TTransaction> operation, CancellationToken cancellationToken)
    {
        try
        {
            if (!_room.Wait(_roomTimeout, cancellationToken))
                throw new MergerQueueFullException(_capacity, _roomTimeout);
            Enqueue(operation, cancellationToken);
        }
        catch (Exception e)
        {
            operation.Fail(e);
        }
    }

    private void Enqueue(MergedOperation<TTransaction> operation, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _enqueuers);
        try
        {
            if (_stopping)
            {
                _room.Release();
                throw new ObjectDisposedException("StorageEnvironment", "The environment is closing: the merger takes no more operations.");
            }
            long token = operation.Token;
            operation.Arm(Stopwatch.GetTimestamp(), cancellationToken);
            _queue.Enqueue(new QueuedOperation<TTransaction>(operation, token));
        }
        finally
        {
            Interlocked.Decrement(ref _enqueuers);
        }
        Wake();
    }

    /// <summary>On the merger's thread: the next operation, if any (its room in the queue is given back).</summary>
    public bool TryDequeue(out QueuedOperation<TTransaction> queued)
    {
        if (!_queue.TryDequeue(out queued))
            return false;
        _room.Release();
        return true;
    }

    /// <summary>Producer side of the sleep protocol: the flag is read after the enqueue (a full fence), the merger sets it before its last look.</summary>
    public void Wake()
    {
        if (Volatile.Read(ref _idle) != 0 && Interlocked.Exchange(ref _idle, 0) != 0)
            _wake.Set();
    }

    /// <summary>
    /// On the merger's thread: sleeps until <paramref name="written"/>'s journal write has returned, or (if
    /// <paramref name="orQueued"/>) an operation is queued, or (with neither) the merger is told to stop.
    /// </summary>
    public void Sleep(CommitSlot<TTransaction>? written, bool orQueued)
    {
        _wake.Reset();
        Interlocked.Exchange(ref _idle, 1);
        bool ready = (written is not null && written.Written) || (orQueued && !_queue.IsEmpty) || (written is null && _stopping);
        if (!ready)
            _wake.Wait();
        Volatile.Write(ref _idle, 0);
    }

    /// <summary>Closes the queue to new operations and waits for callers part way through an enqueue; the merger drains what is queued.</summary>
    public void Close()
    {
        _stopping = true;
        // Full fence: the flag must be visible before the count is read (an enqueuer increments the count,
        // a full fence too, before it reads the flag), or both could miss each other and an operation could
        // be queued after the merger has drained and gone.
        Interlocked.MemoryBarrier();
        SpinWait.SpinUntil(() => Volatile.Read(ref _enqueuers) == 0);
        _wake.Set();
    }

    /// <summary>Fails every operation still queued (the environment failed, or cannot take writes now).</summary>
    public void FailAll(Exception failure)
    {
        while (TryDequeue(out var queued))
        {
            if (queued.Operation.TryStart(queued.Token))
                queued.Operation.Fail(failure);
        }
    }

    public void Dispose()
    {
        _wake.Dispose();
        _room.Dispose();
    }
}
