using Cairn.Errors;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Transactions;

namespace Cairn.Commit;

/// <summary>
/// The journal entries of lazily committed transactions: published, not yet written. They go to the journal
/// together, in commit order, in one write: ahead of the next durable commit's entry (in the same write), when
/// they pass <c>maxBytes</c>, when the oldest has waited <c>maxDelay</c>, or when asked (<c>FlushJournal</c>,
/// a checkpoint, the close, a writer waiting for scratch memory). Once written, the durable watermark moves
/// past them and the flusher may write their pages to the data file.
/// </summary>
/// <remarks>
/// A failed write of entries whose transactions readers already see cannot be undone: it fails the
/// environment (<see cref="EnvironmentFailedException"/>), and a reopen recovers a prefix of the commit order.
/// </remarks>
internal sealed unsafe class LazyCommitQueue : IDisposable
{
    private readonly IJournalAppender _journal;
    private readonly StatePublisher _states;
    private readonly FailureLatch _failure;
    private readonly long _maxBytes;
    private readonly TimeSpan _maxDelay;
    private readonly Timer _timer;

    // Guards everything below, and orders journal writes: whoever writes queued entries, or a durable entry
    // that must follow them, holds it through the write, so entries reach the journal in commit order.
    private readonly Lock _lock = new();
    private readonly JournalBuffer _buffer = new(1 << 20);
    private readonly List<long> _lengths = new(64);
    private readonly List<EntryLocation> _locations = new(64);
    private JournalPosition[] _ends = new JournalPosition[64];
    private long _bytes;
    private long _firstTransactionId;
    private bool _disposed;
    // Read without the lock as a hint (a durable commit with nothing queued skips the copy).
    private volatile int _count;

    public LazyCommitQueue(IJournalAppender journal, StatePublisher states, FailureLatch failure, long maxBytes, TimeSpan maxDelay)
    {
        _journal = journal;
        _states = states;
        _failure = failure;
        _maxBytes = maxBytes;
        _maxDelay = maxDelay;
        _timer = new Timer(static queue => ((LazyCommitQueue)queue!).WriteOnTimer(), this, Timeout.Infinite, Timeout.Infinite);
    }

    /// <summary>How many transactions are published and waiting for their entry's write.</summary>
    public int Count => _count;

    /// <summary>The queued entries have reached the size bound: the committer writes them now.</summary>
    public bool IsFull => Volatile.Read(ref _bytes) >= _maxBytes;

    /// <summary>
    /// On the writer, after the prepare stage: copies the transaction's entry to the end of the queue and
    /// returns where it will be, filled in once it is written. The transaction is published next.
    /// </summary>
    public EntryLocation Enqueue(byte* entry, long length, long transactionId)
    {
        lock (_lock)
        {
            _failure.ThrowIfFailed();
            if (_count == 0)
            {
                _firstTransactionId = transactionId;
                _timer.Change(_maxDelay, Timeout.InfiniteTimeSpan);
            }
            else if (transactionId != _firstTransactionId + _count)
            {
                throw new InvalidOperationException($"Lazy commit of transaction {transactionId} does not follow transaction {_firstTransactionId + _count - 1}.");
            }
            _buffer.EnsureCapacity(_bytes + length);
            Buffer.MemoryCopy(entry, _buffer.Pointer + _bytes, _buffer.Capacity - _bytes, length);
            var location = new EntryLocation(JournalPosition.None);
            _lengths.Add(length);
            _locations.Add(location);
            Volatile.Write(ref _bytes, _bytes + length);
            _count++;
            return location;
        }
    }

    /// <summary>
    /// Writes every queued entry and moves the durable watermark past them. Throws the environment's failure
    /// if the write fails (the failure is latched first).
    /// </summary>
    public void WriteQueued()
    {
        lock (_lock)
        {
            if (_count == 0)
                return;
            long last = _firstTransactionId + _count - 1;
            WriteLocked();
            _states.MarkDurable(last);
        }
    }

    /// <summary>
    /// The write stage of a durable commit: its entry goes to the journal after every queued one, in the same
    /// write. Returns the position just past it. With nothing queued, this is the journal's own append, and
    /// its failures are the caller's to judge; with entries queued, any failure fails the environment.
    /// </summary>
    public JournalPosition WriteWith(byte* entry, long length, long transactionId)
    {
        lock (_lock)
        {
            if (_count == 0)
                return _journal.Append(entry, length, transactionId);
            Enqueue(entry, length, transactionId);
            // The committer publishes the transaction, which moves the durable watermark past all of them.
            return WriteLocked();
        }
    }

    /// <summary>Under the lock, with entries queued: one write, then each one's place is known. Returns the last one's.</summary>
    private JournalPosition WriteLocked()
    {
        int count = _count;
        if (_ends.Length < count)
            _ends = new JournalPosition[Math.Max(count, _ends.Length * 2)];
        try
        {
            _failure.ThrowIfFailed();
            _journal.AppendEntries(_buffer.Pointer, System.Runtime.InteropServices.CollectionsMarshal.AsSpan(_lengths),
                _firstTransactionId, _ends.AsSpan(0, count));
        }
        catch (EnvironmentFailedException)
        {
            Clear();
            throw;
        }
        catch (Exception e)
        {
            Clear();
            // Readers already see these transactions and later ones may stand on them: they cannot be taken back.
            throw _failure.Fail("writing lazily committed transactions to the journal", e is JournalWriteFatalException fatal ? fatal.InnerException ?? fatal : e);
        }
        for (int i = 0; i < count; i++)
            _locations[i].Position = _ends[i];
        Clear();
        return _ends[count - 1];
    }

    private void Clear()
    {
        _lengths.Clear();
        _locations.Clear();
        Volatile.Write(ref _bytes, 0);
        _count = 0;
        _timer.Change(Timeout.Infinite, Timeout.Infinite);
    }

    private void WriteOnTimer()
    {
        try
        {
            lock (_lock)
            {
                if (_disposed)
                    return;
                WriteQueued();
            }
        }
        catch (EnvironmentFailedException)
        {
            // Latched and logged by the latch: the next commit, and FlushJournal, throw it. Nobody waits on the timer.
        }
    }

    /// <summary>A simulated crash: the queued entries are lost, as they would be.</summary>
    public void Discard()
    {
        lock (_lock)
            Clear();
    }

    public void Dispose()
    {
        lock (_lock)
        {
            if (_disposed)
                return;
            _disposed = true;
            Clear();
        }
        using var done = new ManualResetEvent(false);
        if (_timer.Dispose(done))
            done.WaitOne();
        _buffer.Dispose();
    }
}
