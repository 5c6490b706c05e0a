using Cairn.Diagnostics;
using Cairn.Pal;
using Cairn.Errors;
using Cairn.Journal;
using Cairn.Paging;
using Cairn.Transactions;
using Microsoft.Extensions.Logging;

namespace Cairn.Flushing;

/// <summary>
/// When committed pages reach the data file and when the data file is synced. A background thread runs
/// <see cref="RunCycle"/>: it flushes once the oldest unflushed commit has waited
/// <see cref="FlushSettings.MaxFlushDelay"/> and the flush is worth its bytes (FlushScheduler.AgeFlush.cs), or scratch memory passes its threshold, or a writer waits for
/// memory, or journals pile up, or the journal to replay after a crash passes the recovery objective (FlushScheduler.RecoveryObjective.cs);
/// it syncs every <see cref="FlushSettings.SyncInterval"/> (and at once for the objective), and a sync records the
/// synced transaction in the header and releases the journals both header copies are past.
/// <see cref="Checkpoint"/> and <see cref="Close"/> do both at once.
/// </summary>
/// <remarks>
/// A flush that finds the disk full goes journal by journal instead (FlushScheduler.JournalByJournal.cs); when even
/// that finds no room, it is postponed (the pages stay in scratch memory, the journals keep them durable) and retried
/// after <see cref="FlushSettings.DiskFullRetryDelay"/>. Any other flush or sync error fails the environment, because
/// what reached the file is then unknown.
/// </remarks>
internal sealed partial class FlushScheduler : IDisposable
{
    private readonly StatePublisher _states;
    private readonly IFlushTarget _target;
    private readonly ScratchBudget _budget;
    private readonly ScratchAllocator _scratch;
    private readonly FailureLatch _failure;
    private readonly FlushSettings _settings;
    private readonly IoStats _ioStats;
    private readonly ILogger _logger;
    private readonly TimeProvider _time;
    private readonly Func<MappedView, MappedView?> _remapIfGrown;
    // The flusher reads through a reader slot of its own, so nothing it is writing is reclaimed under it.
    private readonly int _flusherSlot;

    // One flush or sync at a time: the background thread, Checkpoint and Close take turns. Guards the
    // fields below it except the two that say so.
    private readonly Lock _flushGate = new();
    // Everything at or below this transaction is in the data file.
    private long _flushedUpTo;
    // What a sync records in the header: the last flushed state, or the end of the journal a step went through.
    private SyncPoint? _flushedPoint;
    // Everything at or below this transaction is in the data file and synced, and the header says so
    // (written under the gate, read anywhere).
    private long _syncedUpTo;
    private long _lastSyncTimestamp;
    private long _retryFlushAt;
    // When the flush delay of the oldest commit not yet flushed started (TimeProvider ticks): its publication, or
    // the last cycle a reader held it back. 0 when there is none.
    // Written by the committer and the flusher with full fences (see FlushOnce), outside the gate.
    private long _unflushedSince;
    private FlushThread? _thread;
    // The synced transaction each backup in progress started from (under the gate), one entry per backup: while any
    // is held the background cycle does not sync, and no sync releases a journal with a transaction after the
    // oldest of them, which that backup still copies; flushes go on, so scratch memory stays bounded
    // (docs/design.md, "Backup and restore").
    private readonly List<long> _syncHolds = [];
    // _syncHolds.Count, for the committers' check of the recovery objective outside the gate (written under the gate).
    private int _syncHoldCount;

    public FlushScheduler(StatePublisher states, IFlushTarget target, ScratchBudget budget, ScratchAllocator scratch, FailureLatch failure,
        FlushSettings settings, IoStats ioStats, ILogger logger, long syncedUpTo, TimeProvider? time = null,
        JournalPosition syncedPosition = default)
    {
        _states = states;
        _target = target;
        _budget = budget;
        _scratch = scratch;
        _failure = failure;
        _settings = settings;
        _ioStats = ioStats;
        _logger = logger;
        _time = time ?? TimeProvider.System;
        _remapIfGrown = target.RemapIfGrown;
        _flusherSlot = states.Readers.Reserve();
        _flushedUpTo = syncedUpTo;
        _syncedUpTo = syncedUpTo;
        RecordSyncedPosition(syncedPosition);
        _lastSyncTimestamp = _time.GetTimestamp();
        failure.Failed += budget.NotifyProgress;
    }

    /// <summary>The last transaction whose pages are all in the data file and synced (what a restart need not replay).</summary>
    public long SyncedUpTo => Volatile.Read(ref _syncedUpTo);

    public long FlushedUpTo
    {
        get
        {
            lock (_flushGate)
                return _flushedUpTo;
        }
    }

    /// <summary>The flusher's reader slot (which the close counts apart from readers).</summary>
    public int ReaderSlot => _flusherSlot;

    /// <summary>Starts the background thread; <paramref name="unflushedWork"/>: recovery replayed transactions the data file lacks.</summary>
    public void Start(bool unflushedWork)
    {
        if (unflushedWork)
            _unflushedSince = _time.GetTimestamp();
        _budget.WakeFlusher = Wake;
        _thread = new FlushThread("cairn-flusher", RunCycle);
    }

    private void Wake() => _thread?.Wake();

    /// <summary>After a commit is published: the first commit the flusher has not seen starts its delay; a full scratch area wakes it now.</summary>
    public void OnPublished()
    {
        long now = _time.GetTimestamp();
        Volatile.Write(ref _newestCommitAt, now);
        if (Volatile.Read(ref _unflushedSince) == 0)
        {
            Volatile.Write(ref _unflushedSince, now);
            Wake();
        }
        else if (_scratch.BytesInUse >= _settings.FlushThresholdBytes || RecoveryObjectiveExceeded())
        {
            Wake();
        }
    }

    /// <summary>A flush and a sync now, both header copies brought up to date (see StorageEnvironment.Checkpoint).</summary>
    public void Checkpoint()
    {
        lock (_flushGate)
        {
            try
            {
                FlushOrGoJournalByJournal();
            }
            catch (Exception e) when (e is not DiskFullException and not EnvironmentFailedException)
            {
                throw _failure.Fail("flushing the data file", e);
            }
            // Also while a backup holds syncs: it needs only its journals kept, which SyncOnce leaves.
            try
            {
                SyncOnce(catchUpOlderCopy: true);
            }
            catch (Exception e)
            {
                throw _failure.Fail("syncing the data file", e);
            }
        }
    }

    /// <summary>
    /// Holds the background cycle's syncs until the returned hold is disposed, and keeps every journal with a
    /// transaction after the synced one at this moment (a <see cref="Checkpoint"/> still syncs, releasing only older
    /// journals); flushes go on. Runs <paramref name="whileTakingHold"/> under the gate once no sync is running, so it
    /// sees the synced header the journals are kept from.
    /// </summary>
    public IDisposable HoldSync(Action whileTakingHold)
    {
        long keptAfter;
        lock (_flushGate)
        {
            keptAfter = _syncedUpTo;
            _syncHolds.Add(keptAfter);
            Volatile.Write(ref _syncHoldCount, _syncHolds.Count);
            whileTakingHold();
        }
        return new SyncHold(this, keptAfter);
    }

    private void ReleaseSyncHold(long keptAfter)
    {
        lock (_flushGate)
        {
            _syncHolds.Remove(keptAfter);
            Volatile.Write(ref _syncHoldCount, _syncHolds.Count);
            // A checkpoint during the backup synced past journals the backup kept: they may go now.
            if (!_failure.HasFailed)
                ReleaseSyncedJournals();
        }
        Wake();
    }

    /// <summary>
    /// Under the gate: releases the journals both header copies are past, but none a running backup still copies;
    /// <paramref name="keepSpares"/> false (a checkpoint short of space) deletes them, none kept for reuse.
    /// </summary>
    private (int Deleted, int Recycled) ReleaseSyncedJournals(bool keepSpares = true)
    {
        long upTo = _target.OlderHeaderTransactionId;
        foreach (long keptAfter in _syncHolds)
            upTo = Math.Min(upTo, keptAfter);
        return _target.ReleaseJournals(upTo, keepSpares);
    }

    private sealed class SyncHold(FlushScheduler owner, long keptAfter) : IDisposable
    {
        private int _released;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _released, 1) == 0)
                owner.ReleaseSyncHold(keptAfter);
        }
    }

    /// <summary>One round of the background thread; returns how long it may sleep before the next.</summary>
    public TimeSpan RunCycle()
    {
        if (_failure.HasFailed)
            return Timeout.InfiniteTimeSpan;
        lock (_flushGate)
        {
            long now = _time.GetTimestamp();
            bool requested = _budget.TakeFlushRequest();
            bool journalsPiling = _target.RetainedJournalBytes >= 2 * _settings.MaxJournalFileBytes;
            bool recoveryDue = RecoveryObjectiveExceeded();
            long since = Volatile.Read(ref _unflushedSince);
            bool flushDue = requested || journalsPiling || recoveryDue || _scratch.BytesInUse >= _settings.FlushThresholdBytes
                || AgeFlushDue(since, now);
            if (flushDue && now >= _retryFlushAt)
            {
                try
                {
                    FlushOrGoJournalByJournal();
                }
                catch (DiskFullException e)
                {
                    Log.FlushPostponed(_logger, _target.DataFilePath, e.Message);
                    _retryFlushAt = now + (long)(_settings.DiskFullRetryDelay.TotalSeconds * _time.TimestampFrequency);
                }
                catch (Exception e)
                {
                    _failure.Fail("flushing the data file", e);
                    return Timeout.InfiniteTimeSpan;
                }
            }
            bool syncDue = _flushedUpTo > _syncedUpTo
                && (requested || journalsPiling || recoveryDue || _time.GetElapsedTime(_lastSyncTimestamp, now) >= _settings.SyncInterval);
            // Journals piling up that only the older header copy still needs (no sync came after the last
            // one) are freed by bringing that copy up to date.
            bool catchUpDue = journalsPiling && _target.OlderHeaderTransactionId < _syncedUpTo;
            if ((syncDue || catchUpDue) && _syncHolds.Count == 0)
            {
                try
                {
                    SyncOnce(catchUpOlderCopy: !syncDue);
                }
                catch (Exception e)
                {
                    _failure.Fail("syncing the data file", e);
                    return Timeout.InfiniteTimeSpan;
                }
            }
            // Idle (everything flushed and synced): scratch memory no commit uses goes back to the OS once a
            // whole cycle passed without an allocation (ScratchAllocator.ReleaseSpareIfIdle).
            if (Volatile.Read(ref _unflushedSince) == 0 && _flushedUpTo == _syncedUpTo)
                _scratch.ReleaseSpareIfIdle();
            return NextDeadline();
        }
    }

    /// <summary>
    /// Stops the background thread; then, unless the environment has failed, flushes and syncs everything
    /// and releases every journal. <paramref name="how"/> says how the close went, for the log, also when
    /// the last flush throws (the journals are kept then, and the next open replays them).
    /// </summary>
    public void Close(ref string how)
    {
        _thread?.Stop();
        if (_failure.HasFailed)
        {
            how = ", failed: the next open recovers from the journals";
            return;
        }
        lock (_flushGate)
        {
            try
            {
                FlushOrGoJournalByJournal();
                SyncOnce(catchUpOlderCopy: true);
            }
            catch (Exception e)
            {
                how = $", not flushed ({e.Message}): the journals are kept and the next open replays them";
                throw;
            }
            var (deleted, recycled) = _target.ReleaseAllJournals();
            how = $", clean (journals: {deleted} deleted, {recycled} kept for reuse)";
        }
    }

    /// <summary>Stops the background thread without flushing (a simulated crash, or the close of a failed environment).</summary>
    public void StopThread() => _thread?.Stop();

    /// <summary>How long until the flush delay of the oldest unflushed commit, or the sync interval, runs out.</summary>
    private TimeSpan NextDeadline()
    {
        long now = _time.GetTimestamp();
        var sleep = Timeout.InfiniteTimeSpan;
        long since = Volatile.Read(ref _unflushedSince);
        if (since != 0)
        {
            var untilFlush = UntilAgeFlushLook(since, now);
            // A flush the disk refused waits for its retry, however long the oldest commit has waited.
            if (_retryFlushAt > now)
                untilFlush = Max(untilFlush, _time.GetElapsedTime(now, _retryFlushAt));
            sleep = Min(sleep, untilFlush);
        }
        if (_flushedUpTo > _syncedUpTo && _syncHolds.Count == 0)
            sleep = Min(sleep, _settings.SyncInterval - _time.GetElapsedTime(_lastSyncTimestamp, now));
        // Spare scratch arenas (or a preparation still mapping some): look again after a sync interval, to give them
        // back if the environment stayed idle.
        if (sleep == Timeout.InfiniteTimeSpan && _scratch.HoldsSpareMemory)
            sleep = _settings.SyncInterval;
        if (sleep == Timeout.InfiniteTimeSpan)
            return sleep;
        return sleep < TimeSpan.FromMilliseconds(1) ? TimeSpan.FromMilliseconds(1) : sleep;

        static TimeSpan Min(TimeSpan a, TimeSpan b) => a == Timeout.InfiniteTimeSpan ? b : b < a ? b : a;
        static TimeSpan Max(TimeSpan a, TimeSpan b) => b > a ? b : a;
    }

    /// <summary>
    /// Under the gate: writes the page versions of the oldest reader's state that are newer than the last
    /// flush, then publishes the current state without those of them it still holds.
    /// </summary>
    private void FlushOnce()
    {
        var state = _states.PinOldestReaderState(_flusherSlot, _flushedUpTo);
        if (state is null)
        {
            // The oldest reader sees nothing newer than the last flush. If commits are waiting, that reader holds
            // them back: give them another flush delay rather than run the cycle again at once (nothing wakes the
            // flusher when a reader ends; scratch pressure and new commits do).
            if (_states.Current.TransactionId > _flushedUpTo)
                Interlocked.Exchange(ref _unflushedSince, _time.GetTimestamp());
            return;
        }
        try
        {
            long start = _time.GetTimestamp();
            List<(long PageNumber, PageVersion Version)> flushed;
            long bytes;
            try
            {
                flushed = _target.WritePages(state, _flushedUpTo, FlushStep.Whole(state), out bytes);
            }
            catch
            {
                RecordIo(IoOperationKind.DataFlush, start, 0, _flushedUpTo, state.TransactionId, failed: true);
                throw;
            }
            RecordIo(IoOperationKind.DataFlush, start, bytes, _flushedUpTo, state.TransactionId, failed: false);
            _states.PublishFlushed(flushed, _remapIfGrown, _flusherSlot);
        }
        finally
        {
            _states.Readers.MarkIdle(_flusherSlot);
        }
        Flushed(state);
    }

    /// <summary>Under the gate, after <paramref name="state"/> was flushed whole: the next sync records it.</summary>
    private void Flushed(EnvironmentState state)
    {
        _flushedUpTo = state.TransactionId;
        _flushedPoint = new SyncPoint(state.TransactionId, state.Root, state.JournalPosition);

        // Restart the delay for commits the flush did not cover. The exchanges are full fences, so a commit
        // published concurrently either is seen here or sees the zero and starts the delay itself.
        Interlocked.Exchange(ref _unflushedSince, 0);
        if (_states.Current.TransactionId > state.TransactionId)
            Interlocked.CompareExchange(ref _unflushedSince, _time.GetTimestamp(), 0);
        _budget.NotifyProgress();
    }

    /// <summary>
    /// Under the gate: syncs the data file, then records the last flushed state in the header (written to
    /// the older copy and synced), then releases the journals that both header copies are past.
    /// <paramref name="catchUpOlderCopy"/>: write the state into the other copy as well, so every journal
    /// the state covers can go now (a checkpoint, a clean close); the background cycle leaves that to its
    /// next sync. <paramref name="keepSpares"/> false (a checkpoint short of space): released journals are deleted, none kept for reuse.
    /// </summary>
    /// <remarks>
    /// Either copy may be the one an open finds valid (the newer may be torn by a crash during its write
    /// or damaged later), so a journal is released only once the older copy is past it too
    /// (docs/decisions.md, reliability 3).
    /// </remarks>
    private void SyncOnce(bool catchUpOlderCopy = false, bool keepSpares = true)
    {
        if (_flushedPoint is not { } state || state.TransactionId <= _syncedUpTo)
        {
            if (catchUpOlderCopy)
            {
                _target.CatchUpOlderHeaderCopy();
                ReleaseSyncedJournals(keepSpares);
            }
            return;
        }
        long start = _time.GetTimestamp();
        try
        {
            _target.SyncDataFile();
            _target.WriteHeader(state, catchUpOlderCopy);
        }
        catch
        {
            RecordIo(IoOperationKind.DataSync, start, 0, _syncedUpTo, state.TransactionId, failed: true);
            throw;
        }
        long end = RecordIo(IoOperationKind.DataSync, start, 0, _syncedUpTo, state.TransactionId, failed: false);
        Volatile.Write(ref _syncedUpTo, state.TransactionId);
        RecordSyncedPosition(state.Position);
        _lastSyncTimestamp = end;
        var (deleted, recycled) = ReleaseSyncedJournals(keepSpares);
        Log.DataFileSynced(_logger, state.TransactionId, _time.GetElapsedTime(start, end).TotalMilliseconds, deleted, recycled);
    }

    /// <summary>Records a flush or sync covering transactions (<paramref name="after"/>, <paramref name="upTo"/>]; returns when it ended.</summary>
    private long RecordIo(IoOperationKind kind, long start, long bytes, long after, long upTo, bool failed)
    {
        long end = _time.GetTimestamp();
        _ioStats.Record(kind, start, end, bytes, _target.DataFilePath, after + 1, upTo, (int)Math.Min(int.MaxValue, upTo - after), failed);
        return end;
    }

    public void Dispose()
    {
        _thread?.Dispose();
        _failure.Failed -= _budget.NotifyProgress;
    }
}

