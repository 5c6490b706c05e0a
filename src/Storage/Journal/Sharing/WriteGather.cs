namespace Cairn.Journal.Sharing;

/// <summary>
/// How long a journal group's next write waits, when one write at a time is on the device, for the members the
/// previous write released to submit again: until all of them have, or a fraction of the measured write time has passed.
/// </summary>
/// <remarks>
/// <para>
/// Why: with one write in flight and no wait, the members split into cohorts. Those released by write N prepare their
/// next commit while write N+1, carrying everyone who arrived during write N, is already on the device; they go into
/// write N+2, and so on. Two cohorts alternate and never merge, so on a device that queues writes (an IOPS cap) each
/// write carries about half of the waiting commits at best, and each write costs the cap the same whatever it carries.
/// Waiting a little for the released members merges the cohorts: where a write costs more than a member's turnaround,
/// one wait of a fraction of it buys a write that carries everyone.
/// </para>
/// <para>
/// Bounds: never longer than <see cref="WriteFraction"/> of the smoothed write time (so at worst a write costs that much
/// more latency when a member went idle, and never an extra device operation), nor than the cap given (a write held by a test or a stalled device says nothing of a
/// member's turnaround), and never when writes run in parallel (the group's caller decides: it asks only at a limit of
/// one, where the device is known to queue). Counts whether released members were back in time, with or without a wait
/// (the bench reports it: the cohort effect, measured). Not thread-safe: the group calls it under its gate. Times are
/// ticks of any monotonic clock.
/// </para>
/// </remarks>
internal sealed class WriteGather(long maxWaitTicks)
{
    /// <summary>
    /// At most this fraction of the smoothed write time is spent waiting for released members: a whole write. Half of
    /// one (stop 41) was too short on a capped device with nine members on two cores: a member's turnaround (its next
    /// commit's CPU and its wake-up) missed it on one write in six, and a member that misses costs a write the cap
    /// counts in full, while the longest wait costs one write's time of latency (docs/decisions.md, stop 44).
    /// </summary>
    public const double WriteFraction = 1.0;

    // Weight of the newest write in the smoothed write time: a few writes' memory, so one stall does not set the bound.
    private const double Smoothing = 1.0 / 8;

    private double _writeTicks;
    private long _expected;
    private long _returned;
    private long _deadline;
    private bool _gathering;

    /// <summary>Members released by writes whose next batch was then taken, and how many of those were back by then.</summary>
    public (long Released, long Returned) Cohorts { get; private set; }

    /// <summary>Next writes that waited (not all released members were back when they first asked).</summary>
    public long Waits { get; private set; }

    /// <summary>
    /// A write of <paramref name="writeTicks"/> settled at <paramref name="now"/>, releasing <paramref name="released"/>
    /// members; <paramref name="gather"/>: the next write may wait for them (one write at a time on the device).
    /// </summary>
    public void Settled(long now, long writeTicks, int released, bool gather)
    {
        if (writeTicks > 0)
            _writeTicks = _writeTicks == 0 ? writeTicks : _writeTicks + Smoothing * (writeTicks - _writeTicks);
        _expected = Math.Max(0, released);
        _returned = 0;
        _gathering = gather && _expected > 0;
        _deadline = now + (long)Math.Min(WriteFraction * _writeTicks, maxWaitTicks);
    }

    /// <summary>A member the last settled write released submitted again; true when that makes all of them back.</summary>
    public bool Returned()
    {
        _returned++;
        return _returned == _expected;
    }

    /// <summary>
    /// How long the next write should still wait at <paramref name="now"/> before taking its batch: zero when it need
    /// not (all released members are back, the deadline passed, it may not gather, or <paramref name="batchFull"/>).
    /// </summary>
    public long WaitFor(long now, bool batchFull)
    {
        if (!_gathering || batchFull || _returned >= _expected || now >= _deadline)
            return 0;
        return _deadline - now;
    }

    /// <summary>The next write takes its batch: the cohort counted, and no more waiting until the next write settles.</summary>
    public void BatchTaken(bool waited)
    {
        if (_expected > 0)
            Cohorts = (Cohorts.Released + _expected, Cohorts.Returned + Math.Min(_returned, _expected));
        if (waited)
            Waits++;
        _expected = 0;
        _returned = 0;
        _gathering = false;
    }
}
