using System.Diagnostics;

namespace Cairn.Diagnostics;

/// <summary>
/// Turns Stopwatch timestamps into wall-clock times and durations. Records keep raw timestamps
/// (the hot path only subtracts); the conversion happens when a snapshot is read, against one
/// (UTC, timestamp) pair taken when the statistics were created, so every record of an
/// environment is placed on the same, monotonic time line even if the wall clock is adjusted.
/// </summary>
internal readonly struct IoClock(DateTime originUtc, long originTimestamp)
{
    public static IoClock StartNow() => new(DateTime.UtcNow, Stopwatch.GetTimestamp());

    /// <summary>A time line that starts at <paramref name="originUtc"/>, for records read back from a dump.</summary>
    public static IoClock StartingAt(DateTime originUtc) => new(originUtc, 0);

    /// <summary>The timestamp that <see cref="ToUtc"/> turns back into <paramref name="utc"/> (exactly, at any frequency of 10 MHz or more).</summary>
    public long ToTimestamp(DateTime utc) => originTimestamp + ToStopwatchTicks((utc - originUtc).Ticks);

    /// <summary>The elapsed timestamp ticks that <see cref="ToDuration"/> turns back into <paramref name="duration"/>.</summary>
    public static long ToElapsedTimestamp(TimeSpan duration) => ToStopwatchTicks(duration.Ticks);

    public DateTime ToUtc(long timestamp) => originUtc.AddTicks(ToTimeSpanTicks(timestamp - originTimestamp));

    public static TimeSpan ToDuration(long elapsedTimestampTicks) => new(ToTimeSpanTicks(elapsedTimestampTicks));

    // Int128 so that no product overflows (nanosecond timestamps times 10^7 would after 15 minutes),
    // and integer division so the conversion is exact wherever the frequency allows it, not
    // subject to the rounding of a floating-point tick ratio.
    private static long ToTimeSpanTicks(long stopwatchTicks)
        => (long)((Int128)stopwatchTicks * TimeSpan.TicksPerSecond / Stopwatch.Frequency);

    // Rounded up, so the truncating way back lands on the same 100 ns tick whenever a tick spans at least one
    // Stopwatch tick: ceil(t·f/10^7)·10^7/f lies in [t, t + 10^7/f), and 10^7/f ≤ 1.
    private static long ToStopwatchTicks(long timeSpanTicks)
    {
        Int128 scaled = (Int128)timeSpanTicks * Stopwatch.Frequency;
        Int128 quotient = scaled / TimeSpan.TicksPerSecond;
        return (long)(scaled % TimeSpan.TicksPerSecond > 0 ? quotient + 1 : quotient);
    }
}
