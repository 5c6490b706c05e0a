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
        var batch = new MergedBatch
        {
            TransactionId = transactionId, Operations = operations,
            AverageQueueWait = operations == 0 ? TimeSpan.Zero : Ticks(queueWaitTicks / operations), MaxQueueWait = Ticks(maxQueueWaitTicks),
            Executing = Ticks(executingTicks), JournalWrite = Ticks(journalWriteTicks), Reruns = reruns,
        };
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
            return new MergerStatisticsSnapshot
            {
                Transactions = _batches, Operations = _operations, FailedOperations = Interlocked.Read(ref _failed),
                CancelledOperations = Interlocked.Read(ref _cancelled), Reruns = _reruns, MaxOperationsPerTransaction = _maxOperations,
                TotalQueueWait = Ticks(_queueWaitTicks), MaxQueueWait = Ticks(_maxQueueWaitTicks), RecentBatches = recent,
            };
        }
    }

    private static TimeSpan Ticks(long stopwatchTicks) => Stopwatch.GetElapsedTime(0, stopwatchTicks);
}

/// <summary>A copy of <see cref="MergerStatistics"/> at one moment.</summary>
/// <remarks>Init-only properties rather than positional parameters, so the type can grow without breaking a caller
/// (docs/decisions.md, issue 26 item 5): the members of 0.2 are <c>required</c>; a member added later has a default.</remarks>
public sealed record MergerStatisticsSnapshot
{
    /// <summary>Transactions the merger committed (each one journal write).</summary>
    public required long Transactions { get; init; }

    /// <summary>Operations committed in them.</summary>
    public required long Operations { get; init; }

    /// <summary>Operations that threw (each failed alone; the rest of its batch committed).</summary>
    public required long FailedOperations { get; init; }

    /// <summary>Operations cancelled before the merger ran them.</summary>
    public required long CancelledOperations { get; init; }

    /// <summary>Batches re-run without an operation that threw.</summary>
    public required long Reruns { get; init; }

    /// <summary>Largest batch.</summary>
    public required int MaxOperationsPerTransaction { get; init; }

    /// <summary>Summed time operations spent queued.</summary>
    public required TimeSpan TotalQueueWait { get; init; }

    /// <summary>Longest time one operation spent queued.</summary>
    public required TimeSpan MaxQueueWait { get; init; }

    /// <summary>The most recent batches (up to 1,024), oldest first.</summary>
    public required IReadOnlyList<MergedBatch> RecentBatches { get; init; }


    /// <summary>Operations per merged transaction on average (0 before the first).</summary>
    public double OperationsPerTransaction => Transactions == 0 ? 0 : (double)Operations / Transactions;

    /// <summary>Mean time an operation spent queued before the merger ran it (zero before the first).</summary>
    public TimeSpan AverageQueueWait => Operations == 0 ? TimeSpan.Zero : TotalQueueWait / Operations;
}
