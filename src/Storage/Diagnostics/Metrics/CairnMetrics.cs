namespace Cairn.Diagnostics;

/// <summary>
/// The names of Cairn's metrics: one <see cref="System.Diagnostics.Metrics.Meter"/> named <see cref="MeterName"/>,
/// its instruments named and measured as OpenTelemetry's semantic conventions ask (lower-case dotted names,
/// durations in seconds, sizes in bytes). Every measurement carries the tag <see cref="EnvironmentTag"/>.
/// The list with descriptions: docs/metrics.md.
/// </summary>
/// <example>
/// <code>
/// // dotnet-counters monitor --counters Cairn -n MyHost
/// services.AddOpenTelemetry().WithMetrics(m => m.AddMeter(CairnMetrics.MeterName));
/// </code>
/// </example>
public static class CairnMetrics
{
    /// <summary>The meter's name, for <c>AddMeter</c>, <c>dotnet-counters --counters</c> and <see cref="System.Diagnostics.Metrics.MeterListener"/>.</summary>
    public const string MeterName = "Cairn";

    /// <summary>The tag naming the environment a measurement is about (<see cref="StorageOptions.Name"/>, or its directory).</summary>
    public const string EnvironmentTag = "cairn.environment";

    /// <summary>The tag of <see cref="Commits"/> and <see cref="CommitDuration"/> telling how a transaction was committed: <c>durable</c>, <c>lazy</c> or <c>merged</c>.</summary>
    public const string CommitModeTag = "cairn.commit.mode";

    /// <summary>The tag of journal-write instruments telling whether the write carried several environments' entries (a journal group's shared write).</summary>
    public const string SharedWriteTag = "cairn.journal.shared";

    /// <summary>OpenTelemetry's tag on a measurement of an operation that failed: the exception's type name.</summary>
    public const string ErrorTypeTag = "error.type";

    /// <summary>Counter, <c>{transaction}</c>: transactions committed, by <see cref="CommitModeTag"/>.</summary>
    public const string Commits = "cairn.commits";

    /// <summary>Histogram, <c>s</c>: how long <see cref="WriteTransaction.Commit()"/> took, from the call until it returned (durable commits only).</summary>
    public const string CommitDuration = "cairn.commit.duration";

    /// <summary>Histogram, <c>s</c>: journal writes, each from submission until durable.</summary>
    public const string JournalWriteDuration = "cairn.journal.write.duration";

    /// <summary>Histogram, <c>By</c>: bytes per journal write (its sum is the bytes written).</summary>
    public const string JournalWriteSize = "cairn.journal.write.size";

    /// <summary>Histogram, <c>s</c>: data-file flushes (committed pages written to the data file).</summary>
    public const string FlushDuration = "cairn.flush.duration";

    /// <summary>Histogram, <c>By</c>: bytes per data-file flush.</summary>
    public const string FlushSize = "cairn.flush.size";

    /// <summary>Histogram, <c>s</c>: data-file syncs.</summary>
    public const string SyncDuration = "cairn.sync.duration";

    /// <summary>Histogram, <c>s</c>: opening an environment, recovery included (one measurement per open).</summary>
    public const string RecoveryDuration = "cairn.recovery.duration";

    /// <summary>Counter, <c>{transaction}</c>: transactions replayed from the journals while opening.</summary>
    public const string RecoveredTransactions = "cairn.recovery.transactions";

    /// <summary>Histogram, <c>{operation}</c>: callers' operations per transaction of the merger.</summary>
    public const string MergerBatchSize = "cairn.merger.batch.size";

    /// <summary>Histogram, <c>s</c>: how long each merged operation waited in the queue before the merger took it.</summary>
    public const string MergerQueueWait = "cairn.merger.queue.wait";

    /// <summary>Observable gauge, <c>{operation}</c>: operations waiting in the merger's queue.</summary>
    public const string MergerQueueDepth = "cairn.merger.queue.depth";

    /// <summary>Observable gauge, <c>By</c>: scratch memory in use (page versions not yet in the data file, and copies readers still see).</summary>
    public const string ScratchUsage = "cairn.scratch.usage";

    /// <summary>Observable gauge, <c>By</c>: journal files on disk that recovery may need (the one in service and those awaiting a sync).</summary>
    public const string JournalDiskUsage = "cairn.journal.disk.usage";

    /// <summary>Observable gauge, <c>s</c>: how long the oldest open read transaction has been open (0 with none open).</summary>
    public const string OldestReaderAge = "cairn.reader.oldest.age";
}
