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

    public DateTime ToUtc(long timestamp) => originUtc.AddTicks(ToTimeSpanTicks(timestamp - originTimestamp));

    public static TimeSpan ToDuration(long elapsedTimestampTicks) => new(ToTimeSpanTicks(elapsedTimestampTicks));

    // Int128 so that no product overflows (nanosecond timestamps times 10^7 would after 15 minutes),
    // and integer division so the conversion is exact wherever the frequency allows it, not
    // subject to the rounding of a floating-point tick ratio.
    private static long ToTimeSpanTicks(long stopwatchTicks)
        => (long)((Int128)stopwatchTicks * TimeSpan.TicksPerSecond / Stopwatch.Frequency);
}
