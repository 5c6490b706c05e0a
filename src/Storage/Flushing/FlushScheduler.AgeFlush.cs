using Cairn.Journal;

namespace Cairn.Flushing;

/// <summary>The flush delay weighed against what a flush writes (<see cref="AgeFlushRule"/>), with what the scheduler knows.</summary>
internal sealed partial class FlushScheduler
{
    // When the newest commit was published (TimeProvider ticks; 0: none since the open). Written by committers, read by the flusher.
    private long _newestCommitAt;
    // The full journals' bytes since the last flush's position, for the pair of journals they were counted for (the flusher's own).
    private JournalSpan? _flushSpanCache;

    /// <summary>Under the gate: whether the age of the oldest unflushed commit (<paramref name="since"/>, 0: none) makes a flush due at <paramref name="now"/>.</summary>
    private bool AgeFlushDue(long since, long now)
    {
        if (since == 0)
            return false;
        var oldestWaited = _time.GetElapsedTime(since, now);
        // The rule checks the delay too; asked here first so that the journal bytes are not counted on every look
        // before the delay has passed.
        return oldestWaited >= _settings.MaxFlushDelay
            && AgeFlushRule.IsDue(_settings, oldestWaited, SinceNewestCommit(now), _scratch.BytesInUse, JournalBytesSinceFlush());
    }

    /// <summary>Under the gate: how long until the age rule should be asked again (<paramref name="since"/> not 0).</summary>
    private TimeSpan UntilAgeFlushLook(long since, long now)
    {
        var oldestWaited = _time.GetElapsedTime(since, now);
        return oldestWaited < _settings.MaxFlushDelay
            ? _settings.MaxFlushDelay - oldestWaited
            : AgeFlushRule.UntilNextLook(_settings, oldestWaited, SinceNewestCommit(now));
    }

    private TimeSpan SinceNewestCommit(long now)
    {
        long newest = Volatile.Read(ref _newestCommitAt);
        return newest == 0 ? TimeSpan.MaxValue : _time.GetElapsedTime(newest, now);
    }

    /// <summary>Under the gate: journal bytes from the state the last flush made the file current for (or the synced one) to the log's end.</summary>
    private long JournalBytesSinceFlush()
    {
        var from = _flushedPoint?.Position ?? Volatile.Read(ref _syncedPosition).Position;
        return JournalBytesBetween(from, WrittenLogEnd(), ref _flushSpanCache);
    }
}
