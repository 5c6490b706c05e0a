using Microsoft.Extensions.Logging;

namespace Cairn.Stress.Protocol;

/// <summary>
/// The storage options a child opens its environments with, passed on its command line
/// (<see cref="StorageOptionsArguments"/>) so the parent opens them the same way when it checks: the engine's own
/// <see cref="StorageOptions"/>, not a copy of them, plus how the child's writers commit.
/// </summary>
internal sealed record StorageSettings
{
    /// <summary>
    /// Every environment's options but its directory. Waits end when what they wait for happens, however loaded the
    /// machine: the lock of a process just killed (the kernel may hold it while it tears down the process' io_uring),
    /// and another caller's write transaction (several callers share an environment).
    /// </summary>
    public StorageOptions Engine { get; init; } = new(".")
    {
        LockWaitTimeout = TimeSpan.FromMinutes(1),
        WriteTransactionTimeout = Timeout.InfiniteTimeSpan,
    };

    /// <summary>
    /// True: the child's <c>BeginWrite</c> writers commit three transactions in four lazily
    /// (<see cref="CommitMode.Lazy"/>, written within <see cref="LazyCommitDelay"/>) and acknowledge
    /// each once <see cref="StorageEnvironment.LastDurableTransactionId"/> passes it. False: every commit durable.
    /// </summary>
    public bool CommitsLazily { get; init; }

    /// <summary>How long a lazy commit waits for its write at most, when <see cref="CommitsLazily"/>.</summary>
    public static readonly TimeSpan LazyCommitDelay = TimeSpan.FromMilliseconds(20);

    /// <summary>A lazy writer with this many transactions unacknowledged makes them durable before it goes on (so a kill finds a bounded number in flight).</summary>
    public const int MaxLazyUnacknowledged = 32;

    /// <summary>For people: which profile these settings came from (not passed to the child).</summary>
    public string Label { get; init; } = "custom";

    public static StorageSettings Flushing { get; } = new StorageSettings { Label = "flushing often" }.WithEngine(o => o with
    {
        FlushThresholdBytes = 256 << 10,
        MaxFlushDelay = TimeSpan.FromMilliseconds(10),
        SyncInterval = TimeSpan.FromMilliseconds(30),
        InitialJournalFileBytes = 64 << 10,
        MaxJournalFileBytes = 1 << 20,
    });

    /// <summary>Small first journals, so the journal switches files (and branches link several) within a run.</summary>
    public static StorageSettings NotFlushing { get; } = new StorageSettings { Label = "not flushing" }.WithEngine(o => o with
    {
        FlushThresholdBytes = 1L << 30,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        InitialJournalFileBytes = 128 << 10,
        MaxJournalFileBytes = 256 << 20,
    });

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
    public bool SyncsWithinARun => Engine.SyncInterval < TimeSpan.FromMinutes(1);

    public StorageSettings WithEngine(Func<StorageOptions, StorageOptions> change) => this with { Engine = change(Engine) };

    /// <summary>These settings with lazy commits on or off (on: the engine writes them within <see cref="LazyCommitDelay"/>).</summary>
    public StorageSettings WithLazyCommits(bool on)
        => on ? this with { CommitsLazily = true, Engine = Engine with { LazyCommitMaxDelay = LazyCommitDelay } } : this;

    public StorageOptions ToStorageOptions(string directory, ILoggerFactory? loggerFactory = null)
        => Engine with { DirectoryPath = directory, LoggerFactory = loggerFactory };

    public IEnumerable<string> ToArguments()
        => StorageOptionsArguments.ToArguments(Engine).Concat(CommitsLazily ? ["--lazy-commits", "1"] : []);

    /// <summary>Takes the storage options out of <paramref name="arguments"/>.</summary>
    public static StorageSettings Take(Arguments arguments) => new()
    {
        Engine = StorageOptionsArguments.Take(arguments, Default.Engine.DirectoryPath),
        CommitsLazily = arguments.TakeLong("--lazy-commits") is > 0,
    };
}
