using Microsoft.Extensions.Logging;

namespace Cairn.Stress.Protocol;

/// <summary>
/// The storage options a child opens its environments with, passed on its command line so the parent opens
/// them the same way when it checks. Unset values keep the engine's defaults.
/// </summary>
internal sealed record StorageSettings
{
    public long? FlushThresholdBytes { get; init; }
    public long? MaxFlushDelayMilliseconds { get; init; }
    public long? SyncIntervalMilliseconds { get; init; }
    public long? MaxScratchBytes { get; init; }
    public long? InitialJournalSize { get; init; }
    public long? MaxJournalSize { get; init; }

    /// <summary>A journal group root's <see cref="StorageOptions.JournalGroupMaxWritesInFlight"/>.</summary>
    public long? GroupWritesInFlight { get; init; }

    /// <summary><see cref="StorageOptions.JournalCompressionThreshold"/> (null: no compression).</summary>
    public long? JournalCompressionThreshold { get; init; }

    /// <summary>
    /// 1: the child's <c>BeginWrite</c> writers commit three transactions in four lazily
    /// (<see cref="CommitMode.Lazy"/>, written within <see cref="LazyCommitDelayMilliseconds"/>) and acknowledge
    /// each once <see cref="StorageEnvironment.LastDurableTransactionId"/> passes it. Null or 0: every commit durable.
    /// </summary>
    public long? LazyCommits { get; init; }

    /// <summary>How long a lazy commit waits for its write at most, when <see cref="LazyCommits"/> is on.</summary>
    public const int LazyCommitDelayMilliseconds = 20;

    /// <summary>A lazy writer with this many transactions unacknowledged makes them durable before it goes on (so a kill finds a bounded number in flight).</summary>
    public const int MaxLazyUnacknowledged = 32;

    public bool CommitsLazily => LazyCommits is > 0;

    /// <summary>For people: which profile these settings came from (not passed to the child).</summary>
    public string Label { get; init; } = "custom";

    public static StorageSettings Flushing { get; } = new()
    {
        Label = "flushing often",
        FlushThresholdBytes = 256 << 10,
        MaxFlushDelayMilliseconds = 10,
        SyncIntervalMilliseconds = 30,
        InitialJournalSize = 64 << 10,
        MaxJournalSize = 1 << 20,
    };

    /// <summary>Small first journals, so the journal switches files (and branches link several) within a run.</summary>
    public static StorageSettings NotFlushing { get; } = new()
    {
        Label = "not flushing",
        FlushThresholdBytes = 1L << 30,
        MaxFlushDelayMilliseconds = 3_600_000,
        SyncIntervalMilliseconds = 3_600_000,
        InitialJournalSize = 128 << 10,
        MaxJournalSize = 256 << 20,
    };

    public static StorageSettings Default { get; } = new() { Label = "engine defaults" };

    /// <summary>The settings a profile stands for; <see cref="StorageProfile.Mixed"/> picks with <paramref name="random"/> (null: flushing).</summary>
    public static StorageSettings For(StorageProfile profile, Random? random) => profile switch
    {
        StorageProfile.Flushing => Flushing,
        StorageProfile.NotFlushing => NotFlushing,
        StorageProfile.Default => Default,
        _ => random is not null && random.Next(2) == 0 ? NotFlushing : Flushing,
    };

    /// <summary>Whether the data file is synced within a run (so a kill can land after a sync).</summary>
    public bool SyncsWithinARun => SyncIntervalMilliseconds is < 60_000;

    public StorageOptions ToStorageOptions(string directory, ILoggerFactory? loggerFactory = null)
    {
        var defaults = new StorageOptions(directory);
        return new StorageOptions(directory)
        {
            FlushThresholdBytes = FlushThresholdBytes ?? defaults.FlushThresholdBytes,
            MaxFlushDelay = MaxFlushDelayMilliseconds is { } delay ? TimeSpan.FromMilliseconds(delay) : defaults.MaxFlushDelay,
            SyncInterval = SyncIntervalMilliseconds is { } sync ? TimeSpan.FromMilliseconds(sync) : defaults.SyncInterval,
            MaxScratchBytes = MaxScratchBytes ?? defaults.MaxScratchBytes,
            InitialJournalSize = InitialJournalSize ?? defaults.InitialJournalSize,
            MaxJournalSize = MaxJournalSize ?? defaults.MaxJournalSize,
            JournalGroupMaxWritesInFlight = GroupWritesInFlight is { } inFlight ? checked((int)inFlight) : defaults.JournalGroupMaxWritesInFlight,
            JournalCompressionThreshold = JournalCompressionThreshold is { } threshold ? checked((int)threshold) : defaults.JournalCompressionThreshold,
            LazyCommitMaxDelay = CommitsLazily ? TimeSpan.FromMilliseconds(LazyCommitDelayMilliseconds) : defaults.LazyCommitMaxDelay,
            LoggerFactory = loggerFactory,
            // Waits end when what they wait for happens, however loaded the machine: the lock of a process just
            // killed (the kernel may hold it while it tears down the process' io_uring), and another caller's
            // write transaction (several callers share an environment).
            LockWaitTimeout = TimeSpan.FromMinutes(1),
            WriteTransactionTimeout = Timeout.InfiniteTimeSpan,
        };
    }

    public IEnumerable<string> ToArguments() => Arguments.Pairs(Pairs());

    /// <summary>Takes the storage options out of <paramref name="arguments"/>.</summary>
    public static StorageSettings Take(Arguments arguments) => new()
    {
        FlushThresholdBytes = arguments.TakeLong("--flush-threshold"),
        MaxFlushDelayMilliseconds = arguments.TakeLong("--max-flush-delay-ms"),
        SyncIntervalMilliseconds = arguments.TakeLong("--sync-interval-ms"),
        MaxScratchBytes = arguments.TakeLong("--max-scratch"),
        InitialJournalSize = arguments.TakeLong("--initial-journal"),
        MaxJournalSize = arguments.TakeLong("--max-journal"),
        GroupWritesInFlight = arguments.TakeLong("--group-writes-in-flight"),
        JournalCompressionThreshold = arguments.TakeLong("--journal-compression-threshold"),
        LazyCommits = arguments.TakeLong("--lazy-commits"),
    };

    private IEnumerable<(string Name, long? Value)> Pairs()
    {
        yield return ("--flush-threshold", FlushThresholdBytes);
        yield return ("--max-flush-delay-ms", MaxFlushDelayMilliseconds);
        yield return ("--sync-interval-ms", SyncIntervalMilliseconds);
        yield return ("--max-scratch", MaxScratchBytes);
        yield return ("--initial-journal", InitialJournalSize);
        yield return ("--max-journal", MaxJournalSize);
        yield return ("--group-writes-in-flight", GroupWritesInFlight);
        yield return ("--journal-compression-threshold", JournalCompressionThreshold);
        yield return ("--lazy-commits", LazyCommits);
    }
}
