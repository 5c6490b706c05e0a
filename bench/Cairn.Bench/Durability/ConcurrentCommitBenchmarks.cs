using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Engines;
using Cairn.Bench.Durability.Concurrent;

namespace Cairn.Bench.Durability;

/// <summary>
/// Durable commits from concurrent callers (merger issue): <see cref="Callers"/> dedicated threads,
/// each with its own <see cref="IDurableWriter"/>, each making single-put durable commits (a 16-byte
/// <see cref="DurableKeys"/> key, a 100-byte value, every key distinct) one after another, each call
/// returning once its commit is durable. One invocation is one round of
/// <see cref="CommitsPerRound"/> commits shared equally among the callers, all released at once, so
/// Mean is wall time per commit and <c>Commits/s</c> is the total rate of all callers.
/// </summary>
/// <remarks>
/// Besides the mean, the benchmark process records each put's latency (its own
/// <see cref="Stopwatch"/> ticks, into arrays allocated before the run) and, for stores that count
/// them (<see cref="IDurableLogCounter"/>), the durable log writes, over the measured iterations only
/// (<see cref="MeasuredStageListener"/>), and prints them at cleanup for the p50, p99 and
/// puts-per-log-write columns (<see cref="ConcurrentCommitResult"/>). Each case starts from an
/// empty store in GlobalSetup, runs unmeasured rounds for <see cref="ProcessWarmUp.Duration"/> there
/// (JIT tiering), then 7 rounds: warm-up, 5 measured, and the engine's allocation-counting one (the
/// Monitoring strategy runs no jitting round).
/// </remarks>
[MemoryDiagnoser]
[Config(typeof(ConcurrentCommitConfig))]
[SimpleJob(RunStrategy.Monitoring, launchCount: 1, warmupCount: 1, iterationCount: 5, invocationCount: 1)]
public class ConcurrentCommitBenchmarks
{
    /// <summary>Commits per round, divisible by every caller count.</summary>
    public const int CommitsPerRound = 4_096;

    /// <summary>The stores this benchmark compares, in this order, when <see cref="DurableStores.FilterVariable"/> allows them.</summary>
    public static readonly string[] Stores = [DurableStores.Lmdb, DurableStores.Sqlite, DurableStores.RocksDb, DurableStores.Faster, DurableStores.ZoneTree, DurableStores.CairnMerger,
        DurableStores.CairnMergerAsync];

    private string _directory = null!;
    private IDurableStore _store = null!;
    private ICommitCallers _callers = null!;
    private MeasuredStageListener _stage = null!;
    private IDurableLogCounter? _logCounter;
    private long _logWrites;

    [Params(1, 4, 16, 64)]
    public int Callers { get; set; } = 1;

    [ParamsSource(nameof(StoreNames))]
    public string Store { get; set; } = DurableStores.Lmdb;

    public static IEnumerable<string> StoreNames() => DurableStores.Selected().Where(Stores.Contains);

    [GlobalSetup]
    public void GlobalSetup()
    {
        _stage = new MeasuredStageListener();
        _directory = BenchScratch.Directory($"concurrent-{Store}-{Callers}");
        _store = DurableStores.Create(Store);
        _store.Open(_directory);
        _logCounter = _store as IDurableLogCounter;
        _callers = CommitCallersFor.Create(Store, _store, Callers, CommitsPerRound / Callers);
        // Reading the log counter after each round keeps RocksDB's statistics interval short enough to count exactly.
        int warmUpRounds = ProcessWarmUp.Run(() =>
        {
            _callers.RunRound(record: false);
            _logCounter?.LogWritesSinceLastRead();
        }, ProcessWarmUp.Duration);
        // BenchmarkDotNet keeps the benchmark process's output in its log: this records what was measured.
        Console.WriteLine($"// {_store.Describe()}");
        Console.WriteLine($"// {Callers} callers, {CommitsPerRound / Callers} commits each per round; {warmUpRounds} unmeasured rounds " +
            $"in GlobalSetup (ProcessWarmUp, {ProcessWarmUp.Duration.TotalSeconds} s) before BenchmarkDotNet's warm-up");
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        try
        {
            if (_stage.ActualStages == 0)
                Console.WriteLine("// no WorkloadActual stage event was seen: latencies and log writes were not recorded");
            var percentiles = _callers.LatencyPercentiles([50, 99]);
            var result = new ConcurrentCommitResult(_callers.RecordedRounds, _callers.RecordedPuts, percentiles[0], percentiles[1],
                _logCounter is null ? -1 : _logWrites, _logCounter?.LogWriteName ?? "-");
            Console.WriteLine(result.Format());
        }
        finally
        {
            _callers.Dispose();
            _store.Dispose();
            _stage.Dispose();
            Directory.Delete(_directory, recursive: true);
        }
    }

    [Benchmark(OperationsPerInvoke = CommitsPerRound, Description = "durable commits, one 100-byte put each, concurrent callers")]
    public void Commit()
    {
        var measured = _stage.InWorkloadActual;
        // Reading the store's log counter costs microseconds against a round of thousands of syncs.
        if (measured)
            _logCounter?.LogWritesSinceLastRead();
        _callers.RunRound(record: measured);
        if (measured && _logCounter is not null)
            _logWrites += _logCounter.LogWritesSinceLastRead();
    }
}
