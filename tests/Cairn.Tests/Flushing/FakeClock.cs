namespace Cairn.Tests.Flushing;

/// <summary>A clock that moves only when the test says: one timestamp unit is one <see cref="TimeSpan"/> tick.</summary>
internal sealed class FakeClock : TimeProvider
{
    // Never 0: the scheduler reads a zero timestamp as "no commit waiting to be flushed".
    private long _now = TimeSpan.TicksPerDay;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp() => Volatile.Read(ref _now);

    public void Advance(TimeSpan by) => Interlocked.Add(ref _now, by.Ticks);
}
