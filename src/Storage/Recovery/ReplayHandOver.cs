using System.Diagnostics;
using System.Runtime.ExceptionServices;

namespace Cairn.Recovery;

/// <summary>
/// The bounded hand-over of <see cref="ReplayBatch"/>es from the replay's reading thread to its applying thread, in the
/// order they were posted. Memory is bounded: the batches out of the pool (being filled, queued, or being applied) hold
/// at most <c>maxBytes</c> of buffers, except that one batch alone may be as large as the entry it must hold; the reader
/// waits for the applier to return batches before it reads more. A failure of the applier (<see cref="Fail"/>) reaches
/// the reader at its next call; <see cref="Cancel"/> ends the applier's wait at once. Every batch is in the pool, in the
/// queue, or with one of the two threads; <see cref="Dispose"/> frees those in the pool and the queue, and one handed
/// back after it is freed then.
/// </summary>
internal sealed class ReplayHandOver : IDisposable
{
    // Protects every field below; the two threads wait on it (Monitor) for a batch or for room.
    private readonly object _lock = new();
    private readonly Queue<ReplayBatch> _queued = new();
    private readonly Stack<ReplayBatch> _pool = new();
    private readonly long _maxBytes;
    private readonly long _chunkBytes;
    private long _outBytes;
    private bool _completed;
    private bool _cancelled;
    private bool _disposed;
    private ExceptionDispatchInfo? _applierFailure;
    private long _readerWaitTicks;
    private long _applierWaitTicks;

    /// <param name="chunkBytes">The size of a pooled batch's buffer (larger ones are freed when returned).</param>
    /// <param name="maxBytes">What the batches out of the pool may hold together (at least one chunk).</param>
    public ReplayHandOver(long chunkBytes, long maxBytes)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(chunkBytes);
        ArgumentOutOfRangeException.ThrowIfLessThan(maxBytes, chunkBytes);
        _chunkBytes = chunkBytes;
        _maxBytes = maxBytes;
    }

    /// <summary>Stopwatch ticks the reader spent waiting in <see cref="TakeFree"/> for room (the applier behind).</summary>
    public long ReaderWaitTicks { get { lock (_lock) return _readerWaitTicks; } }

    /// <summary>Stopwatch ticks the applier spent waiting in <see cref="TakeFull"/> for a batch (the reader behind).</summary>
    public long ApplierWaitTicks { get { lock (_lock) return _applierWaitTicks; } }

    /// <summary>Bytes of buffers out of the pool now (filled, queued or being applied).</summary>
    public long OutBytes { get { lock (_lock) return _outBytes; } }

    /// <summary>
    /// Reader: an empty batch whose buffer holds at least <paramref name="bytes"/>, waiting while the batches out of the
    /// pool leave no room for it. Throws the applier's failure once there is one.
    /// </summary>
    public ReplayBatch TakeFree(long bytes)
    {
        long size = Math.Max(bytes, _chunkBytes);
        lock (_lock)
        {
            long waitStarted = 0;
            while (true)
            {
                ThrowIfStopped();
                if (_outBytes == 0 || _outBytes + size <= _maxBytes)
                    break;
                if (waitStarted == 0)
                    waitStarted = Stopwatch.GetTimestamp();
                Monitor.Wait(_lock);
            }
            if (waitStarted != 0)
                _readerWaitTicks += Stopwatch.GetTimestamp() - waitStarted;
            var batch = _pool.Count > 0 && bytes <= _pool.Peek().Buffer.Capacity ? _pool.Pop() : new ReplayBatch(size);
            batch.HeldBytes = batch.Buffer.Capacity;
            _outBytes += batch.HeldBytes;
            return batch;
        }
    }

    /// <summary>Reader: hands a filled batch to the applier, after every one posted before. Throws the applier's failure.</summary>
    public void Post(ReplayBatch batch)
    {
        lock (_lock)
        {
            if (_disposed || _cancelled || _applierFailure is not null)
            {
                Release(batch);
                ThrowIfStopped();
            }
            if (_completed)
                throw new InvalidOperationException("The hand-over was completed: no batch may follow.");
            _queued.Enqueue(batch);
            Monitor.PulseAll(_lock);
        }
    }

    /// <summary>Reader: gives back a batch it took and did not fill.</summary>
    public void Return(ReplayBatch batch)
    {
        lock (_lock)
        {
            Release(batch);
            Monitor.PulseAll(_lock);
        }
    }

    /// <summary>Reader: nothing more will be posted; the applier's <see cref="TakeFull"/> answers null once the queue is empty.</summary>
    public void Complete()
    {
        lock (_lock)
        {
            _completed = true;
            Monitor.PulseAll(_lock);
        }
    }

    /// <summary>
    /// Applier: the oldest posted batch not taken yet, waiting for one; null when the reader completed and every batch
    /// was taken, or when the hand-over was cancelled (queued batches are then dropped). Hand it back with
    /// <see cref="Applied"/>.
    /// </summary>
    public ReplayBatch? TakeFull()
    {
        lock (_lock)
        {
            long waitStarted = 0;
            while (true)
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                if (_cancelled)
                    return null;
                if (_queued.Count > 0)
                    break;
                if (_completed)
                    return null;
                if (waitStarted == 0)
                    waitStarted = Stopwatch.GetTimestamp();
                Monitor.Wait(_lock);
            }
            if (waitStarted != 0)
                _applierWaitTicks += Stopwatch.GetTimestamp() - waitStarted;
            return _queued.Dequeue();
        }
    }

    /// <summary>Applier: hands back a batch it took (applied or not), making room for the reader.</summary>
    public void Applied(ReplayBatch batch) => Return(batch);

    /// <summary>Applier: it failed and applies nothing more; the reader's next call throws <paramref name="failure"/>.</summary>
    public void Fail(Exception failure)
    {
        lock (_lock)
        {
            _applierFailure ??= ExceptionDispatchInfo.Capture(failure);
            Monitor.PulseAll(_lock);
        }
    }

    /// <summary>Stops both sides: the applier's <see cref="TakeFull"/> answers null, the reader's calls throw.</summary>
    public void Cancel()
    {
        lock (_lock)
        {
            _cancelled = true;
            Monitor.PulseAll(_lock);
        }
    }

    private void ThrowIfStopped()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        _applierFailure?.Throw();
        if (_cancelled)
            throw new OperationCanceledException("The replay's hand-over was cancelled.");
    }

    // Under _lock. Back to the pool, or freed: a buffer grown for a large entry, or one handed back after disposal.
    private void Release(ReplayBatch batch)
    {
        _outBytes -= batch.HeldBytes;
        batch.HeldBytes = 0;
        batch.Clear();
        if (_disposed || batch.Buffer.Capacity > _chunkBytes)
            batch.Dispose();
        else
            _pool.Push(batch);
    }

    /// <summary>Frees the pooled and queued batches and wakes any waiter (which throws <see cref="ObjectDisposedException"/>).</summary>
    public void Dispose()
    {
        lock (_lock)
        {
            if (_disposed)
                return;
            _disposed = true;
            while (_queued.TryDequeue(out var batch))
            {
                _outBytes -= batch.HeldBytes;
                batch.Dispose();
            }
            while (_pool.TryPop(out var batch))
                batch.Dispose();
            Monitor.PulseAll(_lock);
        }
    }
}
