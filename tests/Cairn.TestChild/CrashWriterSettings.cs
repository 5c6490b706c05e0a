using System.Globalization;

namespace Cairn.TestChild;

/// <summary>
/// The storage settings of the crash-writer child, passed on its command line so the parent test picks
/// them (and opens the environment with the same ones). Unset values keep the engine's defaults.
/// </summary>
public sealed record CrashWriterSettings
{
    public long? FlushThresholdBytes { get; init; }
    public int? MaxFlushDelayMilliseconds { get; init; }
    public int? SyncIntervalMilliseconds { get; init; }
    public long? MaxScratchBytes { get; init; }
    public long? InitialJournalSize { get; init; }
    public long? MaxJournalSize { get; init; }

    /// <summary>A journal group root's <see cref="StorageOptions.JournalGroupMaxWritesInFlight"/>.</summary>
    public int? GroupWritesInFlight { get; init; }

    /// <summary>
    /// Set: the writer runs this many concurrent callers through the transaction merger
    /// (<see cref="StorageEnvironment.WriteAsync{TState, TResult}"/>), each operation one workload
    /// transaction, and acknowledges them in whatever order their tasks complete. Not a storage option.
    /// </summary>
    public int? Callers { get; init; }

    /// <summary>1: the workload puts large values (<see cref="CrashWorkload.LargeValues"/>). Not a storage option.</summary>
    public int? LargeValues { get; init; }

    /// <summary>No flush, sync or journal-driven flush within a run: every kill lands before the first flush.</summary>
    public static CrashWriterSettings NeverFlushing { get; } = new()
    {
        FlushThresholdBytes = 1L << 30,
        MaxFlushDelayMilliseconds = 600_000,
        SyncIntervalMilliseconds = 600_000,
        InitialJournalSize = 1 << 20,
        MaxJournalSize = 256 << 20,
    };

    public CrashWorkload Workload(long seed) => new(seed, LargeValues == 1);

    /// <summary>Small thresholds so flushes, syncs, journal switches and deletions all happen within a short run.</summary>
    public static CrashWriterSettings Aggressive { get; } = new()
    {
        FlushThresholdBytes = 256 << 10,
        MaxFlushDelayMilliseconds = 20,
        SyncIntervalMilliseconds = 50,
        InitialJournalSize = 64 << 10,
        MaxJournalSize = 1 << 20,
    };

    public StorageOptions ToStorageOptions(string directory)
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
            JournalGroupMaxWritesInFlight = GroupWritesInFlight ?? defaults.JournalGroupMaxWritesInFlight,
            // Waits end when what they wait for happens, however loaded the machine: the lock of a process
            // just killed (the kernel may hold it while it tears down the process' io_uring), and another
            // caller's write transaction (several callers share an environment).
            LockWaitTimeout = TimeSpan.FromMinutes(1),
            WriteTransactionTimeout = Timeout.InfiniteTimeSpan,
        };
    }

    /// <summary>The settings as <c>--name value</c> arguments, the form <see cref="Parse"/> reads.</summary>
    public IEnumerable<string> ToArguments()
    {
        foreach (var (name, value) in Pairs())
        {
            if (value is not null)
            {
                yield return name;
                yield return value.Value.ToString(CultureInfo.InvariantCulture);
            }
        }
    }

    /// <summary>Reads <c>--name value</c> pairs; unknown names throw so a typo cannot silently run with defaults.</summary>
    public static CrashWriterSettings Parse(IReadOnlyList<string> arguments)
    {
        var settings = new CrashWriterSettings();
        for (int a = 0; a < arguments.Count; a += 2)
        {
            if (a + 1 >= arguments.Count)
                throw new ArgumentException($"option {arguments[a]} has no value");
            long value = long.Parse(arguments[a + 1], CultureInfo.InvariantCulture);
            settings = arguments[a] switch
            {
                "--flush-threshold" => settings with { FlushThresholdBytes = value },
                "--max-flush-delay-ms" => settings with { MaxFlushDelayMilliseconds = checked((int)value) },
                "--sync-interval-ms" => settings with { SyncIntervalMilliseconds = checked((int)value) },
                "--max-scratch" => settings with { MaxScratchBytes = value },
                "--initial-journal" => settings with { InitialJournalSize = value },
                "--max-journal" => settings with { MaxJournalSize = value },
                "--group-writes-in-flight" => settings with { GroupWritesInFlight = checked((int)value) },
                "--callers" => settings with { Callers = checked((int)value) },
                "--large-values" => settings with { LargeValues = checked((int)value) },
                _ => throw new ArgumentException($"unknown option {arguments[a]}"),
            };
        }
        return settings;
    }

    private IEnumerable<(string Name, long? Value)> Pairs()
    {
        yield return ("--flush-threshold", FlushThresholdBytes);
        yield return ("--max-flush-delay-ms", MaxFlushDelayMilliseconds);
        yield return ("--sync-interval-ms", SyncIntervalMilliseconds);
        yield return ("--max-scratch", MaxScratchBytes);
        yield return ("--initial-journal", InitialJournalSize);
        yield return ("--max-journal", MaxJournalSize);
        yield return ("--group-writes-in-flight", GroupWritesInFlight);
        yield return ("--callers", Callers);
        yield return ("--large-values", LargeValues);
    }
}
