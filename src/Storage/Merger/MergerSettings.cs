using System.Diagnostics;

namespace Cairn.Merger;

/// <summary>The merger's bounds, from the environment's options (see StorageOptions for each).</summary>
internal sealed record MergerSettings(
    int MaxQueuedOperations,
    TimeSpan QueueTimeout,
    long MaxTransactionPages,
    TimeSpan MaxBatchDuration,
    TimeSpan ReturnGrace)
{
    public long MaxBatchTicks => (long)(MaxBatchDuration.TotalSeconds * Stopwatch.Frequency);

    public long ReturnGraceTicks => (long)(ReturnGrace.TotalSeconds * Stopwatch.Frequency);
}
