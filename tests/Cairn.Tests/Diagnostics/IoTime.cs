using System.Diagnostics;

namespace Cairn.Tests.Diagnostics;

/// <summary>Stopwatch timestamps for exact microsecond durations, so tests can state expected values by hand.</summary>
internal static class IoTime
{
    private static readonly long TicksPerMicrosecond = CheckedTicksPerMicrosecond();

    /// <summary>A fixed point on the Stopwatch time line for tests that build timestamps from offsets.</summary>
    public static readonly long Origin = Stopwatch.GetTimestamp();

    public static long Microseconds(long microseconds) => microseconds * TicksPerMicrosecond;

    private static long CheckedTicksPerMicrosecond()
    {
        // 10^9 on Linux, 10^7 on Windows. A frequency that is not a whole number of ticks per
        // microsecond would make the hand-computed expectations in these tests inexact.
        Assert.True(Stopwatch.Frequency % 1_000_000 == 0, $"Stopwatch.Frequency {Stopwatch.Frequency} is not a multiple of 10^6");
        return Stopwatch.Frequency / 1_000_000;
    }
}
