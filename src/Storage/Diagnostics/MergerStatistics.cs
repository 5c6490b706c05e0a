using System.Diagnostics;

namespace Cairn.Diagnostics;

/// <summary>
/// What the transaction merger has done since the environment opened: totals, and the most recent
/// batches (<see cref="MergedBatch"/>). Written by the merger's thread once per transaction; read at any
/// time through <see cref="Snapshot"/>.
/// </summary>
public sealed class MergerStatistics
{
    private const int RecentCapacity = 1024;
    // Guards the recent-batch ring and the totals: the merger records, any thread snapshots.
    private readonly Lock _gate = new();
    private readonly MergedBatch[] _recent = new MergedBatch[RecentCapacity];
    private long _batches;
    private long _operations;
    private long _failed;
    private long _cancelled;
    private long _reruns;
    private int _maxOperations;
    private long _queueWaitTicks;
    private long _maxQueueWaitTicks;

    /// <summary>Where batches and queue waits are also measured (the environment's metrics).</summary>
    internal EnvironmentMetrics? Metrics { get; set; }

    internal void RecordQueueWait(long stopwatchTicks) => Metrics?.RecordQueueWait(stopwatchTicks);

    internal void RecordBatch(long transactionId, int operations, long queueWaitTicks, long maxQueueWaitTicks,
        long executingTicks, long journalWriteTicks, int reruns)
    {
        var batch = new MergedBatch(transactionId, operations,
            operations == 0 ? TimeSpan.Zero : Ticks(queueWaitTicks / operations), Ticks(maxQueueWaitTicks),
            Ticks(executingTicks), Ticks(journalWriteTicks), reruns);
        Metrics?.RecordMergedTransaction(operations);
        lock (_gate)
        {
            _recent[_batches % RecentCapacity] = batch;
            _batches++;
            _operations += operations;
            _reruns += reruns;
            _maxOperations = Math.Max(_maxOperations, operations);
            _queueWaitTicks += queueWaitTicks;
            _maxQueueWaitTicks = Math.Max(_maxQueueWaitTicks, maxQueueWaitTicks);
        }
    }

    internal void RecordFailed() => Interlocked.Increment(ref _failed);

    internal void RecordCancelled() => Interlocked.Increment(ref _cancelled);

    /// <summary>A consistent copy of the counters and the recent batches, taken now.</summary>
    public MergerStatisticsSnapshot Snapshot()
    {
        lock (_gate)
        {
            int count = (int)Math.Min(_batches, RecentCapacity);
            var recent = new MergedBatch[count];
            for (int i = 0; i < count; i++)
                recent[i] = _recent[(_batches - count + i) % RecentCapacity];
            return new MergerStatisticsSnapshot(_batches, _operations, Interlocked.Read(ref _failed), Interlocked.Read(ref _cancelled),
                _reruns, _maxOperations, Ticks(_queueWaitTicks), Ticks(_maxQueueWaitTicks), recent);
        }
    }

    private static TimeSpan Ticks(long stopwatchTicks) => Stopwatch.GetElapsedTime(0, stopwatchTicks);
}

/// <summary>A copy of <see cref="MergerStatistics"/> at one moment.</summary>
/// <param name="Transactions">Transactions the merger committed (each one journal write).</param>
/// <param name="Operations">Operations committed in them.</param>
/// <param name="FailedOperations">Operations that threw (each failed alone; the rest of its batch committed).</param>
/// <param name="CancelledOperations">Operations cancelled before the merger ran them.</param>
/// <param name="Reruns">Batches re-run without an operation that threw.</param>
/// <param name="MaxOperationsPerTransaction">Largest batch.</param>
/// <param name="TotalQueueWait">Summed time operations spent queued.</param>
/// <param name="MaxQueueWait">Longest time one operation spent queued.</param>
/// <param name="RecentBatches">The most recent batches (up to 1,024), oldest first.</param>
public sealed record MergerStatisticsSnapshot(
    long Transactions,
    long Operations,
    long FailedOperations,
    long CancelledOperations,
    long Reruns,
    int MaxOperationsPerTransaction,
    TimeSpan TotalQueueWait,
    TimeSpan MaxQueueWait,
    IReadOnlyList<MergedBatch> RecentBatches)
{
    /// <summary>Operations per merged transaction on average (0 before the first).</summary>
    public double OperationsPerTransaction => Transactions == 0 ? 0 : (double)Operations / Transactions;

    /// <summary>Mean time an operation spent queued before the merger ran it (zero before the first).</summary>
    public TimeSpan AverageQueueWait => Operations == 0 ? TimeSpan.Zero : TotalQueueWait / Operations;
}
