using System.Globalization;
using Cairn.Bench.Durability.Concurrent;

namespace Cairn.Bench.Durability.Interleaved;

/// <summary>What <c>--concurrent-interleaved</c> runs; see <see cref="InterleavedConcurrentRun"/>.</summary>
public sealed record InterleavedOptions
{
    public const int MaxCommitsPerRound = 8_192;

    public int[] Callers { get; init; } = [1, 4, 16, 64];

    /// <summary>Measured rounds per store and caller count (after one warm-up round each).</summary>
    public int Rounds { get; init; } = 10;

    /// <summary>Unmeasured rounds run, all cases in turn, until this much time has passed (every case at least once).</summary>
    public TimeSpan WarmUp { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>Commits per round, shared equally by the callers (rounded down to a multiple of the caller count).</summary>
    public int CommitsPerRound { get; init; } = 4_096;

    public string[] Stores { get; init; } = [DurableStores.Lmdb, DurableStores.RocksDb, DurableStores.CairnMerger, DurableStores.CairnMergerAsync];

    /// <summary>The stores every other is divided by (those of them that run), besides its own 1-caller rate.</summary>
    public string[] Baselines { get; init; } = [DurableStores.Lmdb, DurableStores.RocksDb];

    public static InterleavedOptions Parse(IReadOnlyList<string> args)
    {
        var options = new InterleavedOptions();
        for (var i = 0; i < args.Count; i++)
        {
            var value = i + 1 < args.Count ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value");
            options = args[i] switch
            {
                "--callers" => options with { Callers = value.Split(',').Select(v => int.Parse(v, CultureInfo.InvariantCulture)).ToArray() },
                "--rounds" => options with { Rounds = int.Parse(value, CultureInfo.InvariantCulture) },
                "--warmup-seconds" => options with { WarmUp = TimeSpan.FromSeconds(double.Parse(value, CultureInfo.InvariantCulture)) },
                "--commits" => options with { CommitsPerRound = int.Parse(value, CultureInfo.InvariantCulture) },
                "--stores" => options with { Stores = SplitNames(value) },
                "--baselines" => options with { Baselines = SplitNames(value) },
                _ => throw new ArgumentException($"unknown option {args[i]}; known: --callers N[,N...], --rounds N, --warmup-seconds S, --commits N, --stores a,b,..., --baselines a,b,..."),
            };
            i++;
        }
        if (options.Rounds < 1 || options.CommitsPerRound < 1 || options.Callers.Any(c => c < 1) || options.Stores.Length == 0)
            throw new ArgumentException("--rounds, --commits and --callers must be positive and --stores must name at least one store");
        // RocksDB's WAL counter reads one statistics interval per round, exact below 10,000 writes.
        if (options.CommitsPerRound > MaxCommitsPerRound)
            throw new ArgumentException($"--commits is at most {MaxCommitsPerRound} (RocksDB counts its WAL syncs exactly only up to 10,000 per round)");
        if (options.Rounds > CommitCallers.MaxRecordedRounds)
            throw new ArgumentException($"--rounds is at most {CommitCallers.MaxRecordedRounds} (the callers keep that many rounds of latencies)");
        foreach (var store in options.Stores)
            DurableStores.Create(store).Dispose(); // an unknown name fails here, before anything runs
        return options;
    }

    private static string[] SplitNames(string value) => value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
}
