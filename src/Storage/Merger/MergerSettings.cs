using System.Diagnostics;

namespace Cairn.Merger;

/// <summary>
/// The merger's bounds, from the environment's options (see StorageOptions for each).
/// <see cref="WriteOnMergerWhenIdle"/>: a batch submitted with nothing queued behind it is written on the
/// merger's own thread (no hand-over to the journal writer); off only in tests that hold a write to watch the
/// next batch run meanwhile. <see cref="LendToLoneCaller"/>: such a batch of one asynchronous caller's operation ends
/// the chain, and that caller's continuation runs on the merger's thread with no lock held (no thread-pool hop), a
/// stand-in taking the merger's work if it lasts (TransactionMerger.Lend); off in tests that compare with the hop.
/// </summary>
internal sealed record MergerSettings(
    int MaxQueuedOperations,
    TimeSpan QueueTimeout,
    long MaxTransactionPages,
    TimeSpan MaxBatchDuration,
    TimeSpan ReturnGrace,
    bool WriteOnMergerWhenIdle = true,
    bool LendToLoneCaller = true)
{
    public long MaxBatchTicks => (long)(MaxBatchDuration.TotalSeconds * Stopwatch.Frequency);

    public long ReturnGraceTicks => (long)(ReturnGrace.TotalSeconds * Stopwatch.Frequency);
}
