using System.Diagnostics;

namespace Cairn.Merger;

/// <summary>
/// The merger's bounds, from the environment's options (see StorageOptions for each).
/// <see cref="WriteOnMergerWhenIdle"/>: a batch submitted with nothing queued behind it is written on the
/// merger's own thread (no hand-over to the journal writer); off only in tests that hold a write to watch the
/// next batch run meanwhile.
/// </summary>
internal sealed record MergerSettings(
    int MaxQueuedOperations,
    TimeSpan QueueTimeout,
    long MaxTransactionPages,
    TimeSpan MaxBatchDuration,
    TimeSpan ReturnGrace,
    bool WriteOnMergerWhenIdle = true)
{
    public long MaxBatchTicks => (long)(MaxBatchDuration.TotalSeconds * Stopwatch.Frequency);

    public long ReturnGraceTicks => (long)(ReturnGrace.TotalSeconds * Stopwatch.Frequency);
}
