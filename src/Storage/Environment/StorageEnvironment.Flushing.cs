using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Pal;
using Cairn.Transactions;

namespace Cairn;

public sealed unsafe partial class StorageEnvironment
{
    private static readonly TimeSpan FlushRetryDelay = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan PressurePollInterval = TimeSpan.FromMilliseconds(50);

    // One flush or sync at a time: the background thread, Checkpoint and Dispose take turns.
    private readonly Lock _flushGate = new();
    // Waiters for scratch memory sleep here; every flush (and a failure) wakes them.
    private readonly object _progressGate = new();
    // Everything at or below this transaction is in the data file (flusher thread only, under _flushGate).
    private long _flushedUpTo;
    private EnvironmentState? _flushedState;
    // Everything at or below this transaction is in the data file and synced, and the header says so.
    private long _syncedUpTo;
    private long _lastSyncTimestamp;
    // When the oldest commit not yet flushed was published (Stopwatch ticks); 0 when there is none.
    private long _unflushedSince;
    private int _flushRequested;
    private long _retryFlushAt;

    /// <summary>
    /// Writes every committed page no reader still needs the old copy of to the data file, syncs it,
    /// records the synced transaction in the header and deletes the journals it covers. The background
    /// thread does this on its own schedule; call this to do it now (before a backup, or to keep a
    /// restart short). Pages newer than what the oldest open read transaction sees stay in memory.
    /// </summary>
    public void Checkpoint()
    {
        ThrowIfDisposed();
        ThrowIfFailed();
        lock (_flushGate)
        {
            try
            {
                FlushOnce();
            }
            catch (Exception e) when (e is not DiskFullException)
            {
                throw Fail("flushing the data file", e);
            }
            try
            {
                SyncOnce(catchUpOlderCopy: true);
            }
            catch (Exception e)
            {
                throw Fail("syncing the data file", e);
            }
        }
    }

    /// <summary>Test hook: a flush and a sync as the background cycle does them (the older header copy is not caught up).</summary>
    internal void FlushAndSyncAsTheFlusherDoes()
    {
        lock (_flushGate)
        {
            FlushOnce();
            SyncOnce();
        }
    }

    /// <summary>Test hook: a flush without the sync that would normally follow it, leaving flushed pages unsynced.</summary>
    internal void FlushWithoutSync()
    {
        lock (_flushGate)
            FlushOnce();
    }

    /// <summary>One round of the background thread; returns how long it may sleep before the next.</summary>
    private TimeSpan RunFlushCycle()
    {
        if (Volatile.Read(ref _failure) is not null || Volatile.Read(ref _disposed) != 0)
            return Timeout.InfiniteTimeSpan;
        lock (_flushGate)
        {
            long now = Stopwatch.GetTimestamp();
            bool requested = Interlocked.Exchange(ref _flushRequested, 0) != 0;
            bool journalsPiling = _journal.RetainedBytes >= 2 * _options.MaxJournalSize;
            long since = Volatile.Read(ref _unflushedSince);
            bool flushDue = requested || journalsPiling || _scratch.BytesInUse >= _options.FlushThresholdBytes
                || (since != 0 && Stopwatch.GetElapsedTime(since, now) >= _options.MaxFlushDelay);
            if (flushDue && now >= _retryFlushAt)
            {
                try
                {
                    FlushOnce();
                }
                catch (DiskFullException e)
                {
                    Log.FlushPostponed(_logger, _dataFile.FilePath, e.Message);
                    _retryFlushAt = now + (long)(FlushRetryDelay.TotalSeconds * Stopwatch.Frequency);
                }
                catch (Exception e)
                {
                    Fail("flushing the data file", e);
                    return Timeout.InfiniteTimeSpan;
                }
            }
            bool syncDue = _flushedUpTo > _syncedUpTo
                && (requested || journalsPiling || Stopwatch.GetElapsedTime(_lastSyncTimestamp, now) >= _options.SyncInterval);
            // Journals piling up that only the older header copy still needs (no sync came after the last
            // one) are freed by bringing that copy up to date.
            bool catchUpDue = journalsPiling && _headers.Previous.LastTransactionId < _syncedUpTo;
            if (syncDue || catchUpDue)
            {
                try
                {
                    SyncOnce(catchUpOlderCopy: !syncDue);
                }
                catch (Exception e)
                {
                    Fail("syncing the data file", e);
                    return Timeout.InfiniteTimeSpan;
                }
            }
            return NextDeadline();
        }
    }

    /// <summary>How long until the flush delay of the oldest unflushed commit, or the sync interval, runs out.</summary>
    private TimeSpan NextDeadline()
    {
        long now = Stopwatch.GetTimestamp();
        var sleep = Timeout.InfiniteTimeSpan;
        long since = Volatile.Read(ref _unflushedSince);
        if (since != 0)
            sleep = Min(sleep, _options.MaxFlushDelay - Stopwatch.GetElapsedTime(since, now));
        if (_flushedUpTo > _syncedUpTo)
            sleep = Min(sleep, _options.SyncInterval - Stopwatch.GetElapsedTime(_lastSyncTimestamp, now));
        if (_retryFlushAt > now)
            sleep = Min(sleep, Stopwatch.GetElapsedTime(now, _retryFlushAt));
        if (sleep == Timeout.InfiniteTimeSpan)
            return sleep;
        return sleep < TimeSpan.FromMilliseconds(1) ? TimeSpan.FromMilliseconds(1) : sleep;

        static TimeSpan Min(TimeSpan a, TimeSpan b) => a == Timeout.InfiniteTimeSpan ? b : b < a ? b : a;
    }

    /// <summary>
    /// Under <see cref="_flushGate"/>: writes the page versions of the oldest reader's state that are newer
    /// than the last flush, then publishes the current state without those of them it still holds.
    /// </summary>
    private void FlushOnce()
    {
        EnvironmentState state;
        lock (_stateLock)
        {
            long oldest = _readers.OldestEpoch(_current.Epoch);
            state = _history.StateAt(oldest);
            if (state.TransactionId <= _flushedUpTo)
                return;
            // Reclaiming happens under this lock too, so nothing of the chosen state can go before the slot shows it.
            _readers.Publish(_flusherSlot, state.Epoch);
        }
        try
        {
            long start = Stopwatch.GetTimestamp();
            List<(long PageNumber, Paging.PageVersion Version)> flushed;
            try
            {
                flushed = _flusher.Flush(state, _flushedUpTo);
            }
            catch
            {
                _ioStats.Record(IoOperationKind.DataFlush, start, Stopwatch.GetTimestamp(), 0, _dataFile.FilePath,
                    _flushedUpTo + 1, state.TransactionId, (int)Math.Min(int.MaxValue, state.TransactionId - _flushedUpTo), failed: true);
                throw;
            }
            var stats = _flusher.LastFlush;
            _ioStats.Record(IoOperationKind.DataFlush, start, Stopwatch.GetTimestamp(), stats.Bytes, _dataFile.FilePath,
                _flushedUpTo + 1, state.TransactionId, (int)Math.Min(int.MaxValue, state.TransactionId - _flushedUpTo));
            RemoveFlushedVersions(flushed);
        }
        finally
        {
            _readers.MarkIdle(_flusherSlot);
        }
        _flushedUpTo = state.TransactionId;
        _flushedState = state;

        // Restart the delay for commits the flush did not cover. The exchanges are full fences, so a commit
        // published concurrently either is seen here or sees the zero and starts the delay itself.
        Interlocked.Exchange(ref _unflushedSince, 0);
        if (Volatile.Read(ref _current).TransactionId > state.TransactionId)
            Interlocked.CompareExchange(ref _unflushedSince, Stopwatch.GetTimestamp(), 0);
        lock (_progressGate)
            Monitor.PulseAll(_progressGate);
    }

    /// <summary>Publishes the current state minus the flushed versions it still has (a commit may have replaced some meanwhile).</summary>
    private void RemoveFlushedVersions(List<(long PageNumber, Paging.PageVersion Version)> flushed)
    {
        lock (_stateLock)
        {
            var current = _current;
            var retired = _reclaimer.Rent();
            var pages = current.Pages.ToBuilder();
            foreach (var (pageNumber, version) in flushed)
            {
                if (current.Pages.TryGet(pageNumber, out var now) && now.Pointer == version.Pointer && now.TransactionId == version.TransactionId)
                {
                    pages.Remove(pageNumber);
                    retired.ScratchVersions.Add((version.Pointer, version.PageCount));
                }
            }
            var view = current.View;
            if (_dataFile.PageCount != view.PageCount)
            {
                retired.View = view;
                view = _dataFile.Map();
            }
            if (!retired.IsEmpty)
                PublishLocked(current.WithPages(current.Epoch + 1, pages.ToImmutable(), view), retired);
            else
                _reclaimer.Retire(current.Epoch, retired);
            _readers.MarkIdle(_flusherSlot);
            ReclaimLocked();
        }
    }

    /// <summary>
    /// Under <see cref="_flushGate"/>: fdatasyncs the data file, then records the last flushed state in the
    /// header (written to the older copy and synced), then deletes the journals that both header copies
    /// are past. <paramref name="catchUpOlderCopy"/>: write the state into the other copy as well, so
    /// every journal the state covers can go now (a checkpoint, a clean close); the background cycle
    /// leaves that to its next sync.
    /// </summary>
    /// <remarks>
    /// Either copy may be the one an open finds valid (the newer may be torn by a crash during its write
    /// or damaged later), so a journal is released only once the older copy is past it too
    /// (docs/decisions.md, reliability 3).
    /// </remarks>
    private void SyncOnce(bool catchUpOlderCopy = false)
    {
        var state = _flushedState;
        if (state is null || state.TransactionId <= _syncedUpTo)
        {
            if (catchUpOlderCopy)
                CatchUpOlderHeaderCopy();
            return;
        }
        long start = Stopwatch.GetTimestamp();
        try
        {
            _dataFile.Sync();
            var header = _headers.Current;
            header.LastTransactionId = state.TransactionId;
            header.NextPageNumber = state.NextPageNumber;
            header.RootTree = state.RootTree;
            header.FreeSpaceDirectoryPage = state.FreeSpaceDirectoryPage;
            header.JournalSequence = state.JournalPosition.Sequence;
            header.JournalOffset = state.JournalPosition.EndOffset;
            _headers.Write(header);
            if (catchUpOlderCopy)
                _headers.CatchUp();
        }
        catch
        {
            _ioStats.Record(IoOperationKind.DataSync, start, Stopwatch.GetTimestamp(), 0, _dataFile.FilePath,
                _syncedUpTo + 1, state.TransactionId, (int)Math.Min(int.MaxValue, state.TransactionId - _syncedUpTo), failed: true);
            throw;
        }
        long end = Stopwatch.GetTimestamp();
        _ioStats.Record(IoOperationKind.DataSync, start, end, 0, _dataFile.FilePath,
            _syncedUpTo + 1, state.TransactionId, (int)Math.Min(int.MaxValue, state.TransactionId - _syncedUpTo));
        Volatile.Write(ref _syncedUpTo, state.TransactionId);
        _lastSyncTimestamp = end;
        var (deleted, recycled) = _journal.Release(_headers.Previous.LastTransactionId);
        Log.DataFileSynced(_logger, state.TransactionId, Stopwatch.GetElapsedTime(start, end).TotalMilliseconds, deleted, recycled);
    }

    /// <summary>Writes the current header into the older copy too (the data it describes is synced already), then releases what that frees.</summary>
    private void CatchUpOlderHeaderCopy()
    {
        _headers.CatchUp();
        _journal.Release(_headers.Previous.LastTransactionId);
    }

    /// <summary>
    /// On the writer, under the write lock, when scratch memory is over its limit: asks the flusher to
    /// run and waits until memory is back under the limit, or throws after the configured timeout.
    /// </summary>
    private void WaitForScratchMemory()
    {
        Log.ScratchPressure(_logger, _scratch.BytesInUse, _options.MaxScratchBytes);
        long started = Stopwatch.GetTimestamp();
        while (true)
        {
            ReclaimUnreachable();
            if (_scratch.BytesInUse < _options.MaxScratchBytes)
                return;
            ThrowIfFailed();
            var remaining = _options.ScratchWaitTimeout - Stopwatch.GetElapsedTime(started);
            if (remaining <= TimeSpan.Zero)
            {
                var current = Volatile.Read(ref _current);
                long oldestReader;
                lock (_stateLock)
                    oldestReader = _history.StateAt(_readers.OldestEpoch(current.Epoch)).TransactionId;
                throw new ScratchMemoryExhaustedException(_scratch.BytesInUse, _options.MaxScratchBytes, _options.ScratchWaitTimeout,
                    oldestReader, current.TransactionId);
            }
            Interlocked.Exchange(ref _flushRequested, 1);
            _flushThread?.Wake();
            lock (_progressGate)
                Monitor.Wait(_progressGate, remaining < PressurePollInterval ? remaining : PressurePollInterval);
        }
    }
}
