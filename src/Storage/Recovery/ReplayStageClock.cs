using System.Diagnostics;
using Cairn.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Cairn.Recovery;

/// <summary>
/// Where a replay's time goes, by stage (issue 29 item 9): the cold open's budget cannot be spent well without knowing
/// which stage holds it, and a profiler's CPU samples miss the time spent waiting for the disk. Two timestamps an entry
/// cost nothing beside decoding it. Not thread-safe: one recovery owns one.
/// </summary>
internal struct ReplayStageClock
{
    /// <summary>Reading entries from the journals and validating their headers and hashes.</summary>
    public long ReadTicks;

    /// <summary>Checking and applying the entries' page records (including base-page copies from the data file).</summary>
    public long ApplyTicks;

    /// <summary>Scanning past each journal's log end for a valid later entry (damage, not a torn tail).</summary>
    public long TailScanTicks;

    /// <summary>Validating every rebuilt run's checksum at the end.</summary>
    public long CompleteTicks;

    public static long Now => Stopwatch.GetTimestamp();

    public readonly void Report(ILogger logger)
        => Log.RecoveryStages(logger, Milliseconds(ReadTicks), Milliseconds(ApplyTicks), Milliseconds(TailScanTicks), Milliseconds(CompleteTicks));

    private static double Milliseconds(long ticks) => ticks * 1000.0 / Stopwatch.Frequency;
}
