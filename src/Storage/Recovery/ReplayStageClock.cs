using System.Diagnostics;
using Cairn.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Cairn.Recovery;

/// <summary>
/// Where a replay's time goes, by stage and by thread (issue 29 item 9): the cold open's budget cannot be spent well
/// without knowing which stage holds it, and a profiler's CPU samples miss the time spent waiting for the disk. With the
/// replay in two threads, the waits say which one is the critical path: a reader waiting for room is held up by the
/// applier, an applier waiting for entries by the reader. Two timestamps an entry cost nothing beside decoding it.
/// Not thread-safe: the reading thread fills it, with the applier's figures copied in after it ended.
/// </summary>
internal struct ReplayStageClock
{
    /// <summary>Reading thread: reading entries from the journals and validating their headers and hashes (waits for room included).</summary>
    public long ReadTicks;

    /// <summary>Reading thread: checking the page records and diff ops of the entries to apply.</summary>
    public long CheckTicks;

    /// <summary>Reading thread: scanning past each journal's log end for a valid later entry (damage, not a torn tail).</summary>
    public long TailScanTicks;

    /// <summary>Reading thread: waiting, inside reads, for the applier to hand batches back (it is behind).</summary>
    public long ReaderWaitTicks;

    /// <summary>Applying thread: applying the entries' page records (including base-page copies from the data file).</summary>
    public long ApplyTicks;

    /// <summary>Applying thread: waiting for the reader to hand over entries (it is behind).</summary>
    public long ApplierWaitTicks;

    /// <summary>After the reading thread is done: waiting for the applier to finish.</summary>
    public long DrainTicks;

    /// <summary>Validating every rebuilt run's checksum at the end.</summary>
    public long CompleteTicks;

    public static long Now => Stopwatch.GetTimestamp();

    public readonly void Report(ILogger logger)
        => Log.RecoveryStages(logger, Milliseconds(ReadTicks - ReaderWaitTicks), Milliseconds(CheckTicks), Milliseconds(TailScanTicks),
            Milliseconds(ReaderWaitTicks), Milliseconds(ApplyTicks), Milliseconds(ApplierWaitTicks), Milliseconds(DrainTicks),
            Milliseconds(CompleteTicks));

    private static double Milliseconds(long ticks) => ticks * 1000.0 / Stopwatch.Frequency;
}
