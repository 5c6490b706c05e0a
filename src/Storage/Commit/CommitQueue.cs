using System.Runtime.InteropServices;
using Cairn.Errors;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Transactions;

namespace Cairn.Commit;

/// <summary>
/// The journal entries of transactions that are published but not yet written: lazy commits, and durable
/// commits made while other writers wait (group commit, <see cref="WaitDurable"/>). They go to the journal
/// together, in commit order, in one write: ahead of the next durable entry written under the write lock (in the
/// same write, <see cref="WriteWith"/>), when a durable committer waiting outside the lock leads the next write,
/// when they pass <c>maxBytes</c>, when the oldest has waited <c>maxDelay</c>, or when asked (<c>FlushJournal</c>,
/// a checkpoint, the close, a writer waiting for scratch memory). Once written, the durable watermark moves past
/// them and the flusher may write their pages to the data file.
/// </summary>
/// <remarks>
/// Two batches: writers append to the open one while the other is being written, so a commit never waits
/// for a write it is not part of. A failed write of entries whose transactions readers already see cannot
/// be undone: it fails the environment (<see cref="EnvironmentFailedException"/>), and a reopen recovers a
/// prefix of the commit order.
/// </remarks>
internal sealed unsafe class CommitQueue : IDisposable
{
    // Where writes go; replaced (under _writeLock) when the environment joins a journal group.
    private IJournalAppender _journal;
    private readonly StatePublisher _states;
    private readonly FailureLatch _failure;
    private readonly long _maxBytes;
    private readonly TimeSpan _maxDelay;
    private readonly Timer _timer;
    // The group committers waiting for their entries' write, and which of them leads the writes.
    private readonly DurableWaiters _waiters;
    // Most writes a leader makes for others once its own commit is durable, before it hands the lead on: each saves
    // a wake-up before the next write, and the bound keeps its own caller from waiting on a stream of others.
    private const int MaxWritesForOthers = 4;

    // Orders journal writes: whoever takes the open batch to write it, or writes a durable entry that must
    // follow it, holds this through the write. Taken before _queueLock, never inside it.
    private readonly Lock _writeLock = new();
    private Batch _spare = new();
    private JournalPosition[] _ends = new JournalPosition[64];
    // A batch is on its way to the journal (set and cleared under _writeLock; read without it, as a hint).
    private volatile bool _batchInFlight;

    // Guards the open batch (appending to it, taking it) and _disposed. Never held across I/O.
    private readonly Lock _queueLock = new();
    private Batch _open = new();
    private bool _disposed;

    public CommitQueue(IJournalAppender journal, StatePublisher states, FailureLatch failure, long maxBytes, TimeSpan maxDelay)
    {
        _journal = journal;
        _states = states;
        _failure = failure;
        _maxBytes = maxBytes;
        _maxDelay = maxDelay;
        _waiters = new DurableWaiters(states);
        _timer = new Timer(static queue => ((CommitQueue)queue!).WriteOnTimer(), this, Timeout.Infinite, Timeout.Infinite);
    }

    /// <summary>Where the entries are written now.</summary>
    public IJournalAppender Journal => Volatile.Read(ref _journal);

    /// <summary>
    /// From the next write on, entries go to <paramref name="journal"/>: taken under the write lock, so a write under way
    /// finishes where it began and none goes out half to each.
    /// </summary>
    public void SwitchJournal(IJournalAppender journal)
    {
        lock (_writeLock)
            Volatile.Write(ref _journal, journal);
    }

    /// <summary>
    /// Whether queued entries are being written, or a waiting committer leads the next write: a durable commit made now
    /// would wait for that write under the write lock, so it is group-committed instead (<see cref="TransactionCommitter.Choose"/>).
    /// </summary>
    public bool WriteUnderWay => _batchInFlight || _waiters.Leading;

    /// <summary>The queued entries have reached the size bound: the committer writes them now.</summary>
    public bool IsFull => Volatile.Read(ref _open.Bytes) >= _maxBytes;

    /// <summary>
    /// On the writer, after the prepare stage: copies the transaction's entry to the end of the open batch and
    /// returns where it will be, filled in once it is written. The transaction is published next.
    /// </summary>
    public EntryLocation Enqueue(byte* entry, long length, long transactionId)
    {
        lock (_queueLock)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _failure.ThrowIfFailed();
            if (_open.Count == 0)
                _timer.Change(_maxDelay, Timeout.InfiniteTimeSpan);
            return _open.Add(entry, length, transactionId);
        }
    }

    /// <summary>
    /// Writes every queued entry and moves the durable watermark past them. Throws the environment's failure
    /// if the write fails (the failure is latched first).
    /// </summary>
    public void WriteQueued()
    {
        lock (_writeLock)
            WriteOpenBatch();
    }

    /// <summary>The timer's write: nothing to do once the queue is disposed.</summary>
    private void WriteQueuedUnlessDisposed()
    {
        lock (_writeLock)
        {
            lock (_queueLock)
            {
                if (_disposed)
                    return;
            }
            WriteOpenBatch();
        }
    }

    /// <summary>
    /// Returns once transaction <paramref name="transactionId"/>'s queued entry is durable. The first committer to wait
    /// while nobody leads leads: it writes every entry queued so far, then, while others wait, up to
    /// <see cref="MaxWritesForOthers"/> more batches, and hands the lead to the longest waiter. The others sleep until a
    /// write carries their entry, and whoever made it wakes them all (<see cref="DurableWaiters"/>). Throws the
    /// environment's failure if a write failed (the transaction may or may not be durable then).
    /// </summary>
    public void WaitDurable(long transactionId)
    {
        while (_states.DurableUpTo < transactionId)
        {
            _failure.ThrowIfFailed();
            ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed), this);
            switch (_waiters.WaitOrLead(transactionId))
            {
                case DurableWaiters.Turn.Durable:
                    return;
                case DurableWaiters.Turn.Lead:
                    Lead(transactionId);
                    return;
            }
        }
    }

    /// <summary>Leads the writes until <paramref name="transactionId"/> is durable, then for those still waiting a while; hands the lead on.</summary>
    private void Lead(long transactionId)
    {
        try
        {
            int forOthers = 0;
            while (true)
            {
                _failure.ThrowIfFailed();
                bool wrote;
                lock (_writeLock)
                    wrote = WriteOpenBatch();
                if (_states.DurableUpTo >= transactionId)
                {
                    if (!wrote || !_waiters.AnyWaiting || ++forOthers > MaxWritesForOthers)
                        return;
                }
                else if (!wrote)
                {
                    // Nothing queued, yet not durable: a durable commit's write just carried the entry (WriteWith) and its
                    // publication, which moves the watermark, is a moment away.
                    Thread.Yield();
                }
            }
        }
        finally
        {
            _waiters.EndLead();
        }
    }

    /// <summary>
    /// The write stage of a durable commit made under the write lock: its entry goes to the journal after every
    /// queued one, in the same write. Returns the position just past it. With nothing queued this is the
    /// journal's own append, without a copy, and its failures are the caller's to judge; with entries queued,
    /// any failure fails the environment.
    /// </summary>
    public JournalPosition WriteWith(byte* entry, long length, long transactionId)
    {
        lock (_writeLock)
        {
            Batch? batch = null;
            lock (_queueLock)
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                if (_open.Count > 0)
                {
                    _open.Add(entry, length, transactionId);
                    batch = TakeOpenLocked();
                }
            }
            if (batch is null)
                return _journal.Append(entry, length, transactionId);
            var end = Write(batch);
            // The queued ones are durable now; the committer's publication of its own moves the watermark past it.
            _states.MarkDurable(transactionId - 1);
            _waiters.WakeDurable();
            return end;
        }
    }

    /// <summary>Under the write lock: takes the open batch and writes it, then moves the durable watermark. False if it was empty.</summary>
    private bool WriteOpenBatch()
    {
        Batch batch;
        lock (_queueLock)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (_open.Count == 0)
                return false;
            batch = TakeOpenLocked();
        }
        long last = batch.LastTransactionId;
        Write(batch);
        _states.MarkDurable(last);
        _waiters.WakeDurable();
        return true;
    }

    /// <summary>Under both locks: the open batch is swapped for the empty spare (the one written last).</summary>
    private Batch TakeOpenLocked()
    {
        var taken = _open;
        _open = _spare;
        _spare = taken;
        _timer.Change(Timeout.Infinite, Timeout.Infinite);
        return taken;
    }

    /// <summary>Under the write lock: one write of the batch, then each entry's place is known. Returns the last one's.</summary>
    private JournalPosition Write(Batch batch)
    {
        int count = batch.Count;
        if (_ends.Length < count)
            _ends = new JournalPosition[Math.Max(count, _ends.Length * 2)];
        try
        {
            _failure.ThrowIfFailed();
            _batchInFlight = true;
            _journal.AppendEntries(batch.Buffer.Pointer, CollectionsMarshal.AsSpan(batch.Lengths), batch.FirstTransactionId, _ends.AsSpan(0, count));
        }
        catch (EnvironmentFailedException)
        {
            batch.Clear();
            _waiters.WakeAll();
            throw;
        }
        catch (Exception e)
        {
            batch.Clear();
            // Readers already see these transactions and later ones may stand on them: they cannot be taken back.
            var failed = _failure.Fail("writing published transactions to the journal",
                e is JournalWriteFatalException fatal ? fatal.InnerException ?? fatal : e);
            _waiters.WakeAll();
            throw failed;
        }
        finally
        {
            _batchInFlight = false;
        }
        for (int i = 0; i < count; i++)
            batch.Locations[i].Position = _ends[i];
        batch.Clear();
        return _ends[count - 1];
    }

    private void WriteOnTimer()
    {
        try
        {
            WriteQueuedUnlessDisposed();
        }
        catch (EnvironmentFailedException)
        {
            // Latched and logged by the latch: the next commit, and FlushJournal, throw it. Nobody waits on the timer.
        }
    }

    public void Dispose()
    {
        lock (_writeLock)
        {
            lock (_queueLock)
            {
                if (_disposed)
                    return;
                _disposed = true;
                // What is still queued is lost, as a crash would lose it (a clean close wrote it first).
                _open.Clear();
            }
        }
        _waiters.WakeAll();
        using var done = new ManualResetEvent(false);
        if (_timer.Dispose(done))
            done.WaitOne();
        _open.Dispose();
        _spare.Dispose();
    }

    /// <summary>Consecutive transactions' entries back to back in one aligned buffer, with where each will end.</summary>
    private sealed class Batch : IDisposable
    {
        public readonly JournalBuffer Buffer = new(2 << 20); // one huge page
        public readonly List<long> Lengths = new(64);
        public readonly List<EntryLocation> Locations = new(64);
        public long Bytes;
        public long FirstTransactionId;

        public int Count => Lengths.Count;

        public long LastTransactionId => FirstTransactionId + Count - 1;

        public EntryLocation Add(byte* entry, long length, long transactionId)
        {
            if (Count == 0)
                FirstTransactionId = transactionId;
            else if (transactionId != FirstTransactionId + Count)
                throw new InvalidOperationException($"The entry of transaction {transactionId} does not follow transaction {LastTransactionId} in the journal queue.");
            Buffer.EnsureCapacity(Bytes + length);
            System.Buffer.MemoryCopy(entry, Buffer.Pointer + Bytes, Buffer.Capacity - Bytes, length);
            var location = new EntryLocation(JournalPosition.None, startsBatch: Count == 0);
            Lengths.Add(length);
            Locations.Add(location);
            Volatile.Write(ref Bytes, Bytes + length);
            return location;
        }

        public void Clear()
        {
            Lengths.Clear();
            Locations.Clear();
            Volatile.Write(ref Bytes, 0);
        }

        public void Dispose() => Buffer.Dispose();
    }
}
