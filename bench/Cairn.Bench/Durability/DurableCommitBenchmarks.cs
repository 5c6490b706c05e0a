using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Engines;
using Cairn.Bench.Durability.Columns;
using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Durability;

/// <summary>
/// Durable single-writer commits (durability issue): one operation is one write transaction holding
/// one put of a 16-byte key (<see cref="DurableKeys"/>) and a 100-byte value, durable when it
/// returns; for raw, one 4 KiB O_DIRECT|O_DSYNC write. Each invocation commits
/// <see cref="CommitsPerInvoke"/> times, so Mean is per commit and includes every sync stall,
/// checkpoint and page split that happens on the way (the Monitoring strategy keeps all iterations,
/// outliers too). Each store starts empty in GlobalSetup, on the real disk, warms up there for
/// <see cref="ProcessWarmUp.Duration"/> (JIT tiering) and grows through the run.
/// </summary>
[MemoryDiagnoser]
[Config(typeof(DurableCommitConfig))]
[SimpleJob(RunStrategy.Monitoring, launchCount: 1, warmupCount: 2, iterationCount: 15, invocationCount: 1)]
public class DurableCommitBenchmarks
{
    public const int CommitsPerInvoke = 2_000;

    private string _directory = null!;
    private IDurableStore _store = null!;
    private IDurableWriter _writer = null!;
    private ulong _nextKey;

    [ParamsSource(nameof(StoreNames))]
    public string Store { get; set; } = DurableStores.Raw;

    public static IEnumerable<string> StoreNames() => DurableStores.Selected().Where(n => !n.EndsWith(DurableStores.AsyncSuffix, StringComparison.Ordinal));

    [GlobalSetup]
    public void GlobalSetup()
    {
        _directory = BenchScratch.Directory($"durable-{Store}");
        _store = DurableStores.Create(Store);
        _store.Open(_directory);
        _writer = _store.CreateWriter();
        int warmUpRounds = ProcessWarmUp.Run(Commit, ProcessWarmUp.Duration);
        // BenchmarkDotNet keeps the benchmark process's output in its log: this records what was measured.
        Console.WriteLine($"// {_store.Describe()}; {warmUpRounds} unmeasured rounds in GlobalSetup (ProcessWarmUp, {ProcessWarmUp.Duration.TotalSeconds} s)");
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        _writer.Dispose();
        _store.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    [Benchmark(OperationsPerInvoke = CommitsPerInvoke, Description = "durable commit, one 100-byte put")]
    public void Commit()
    {
        Span<byte> key = stackalloc byte[DurableKeys.KeySize];
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        var writer = _writer;
        for (var i = 0; i < CommitsPerInvoke; i++)
        {
            DurableKeys.Write(_nextKey++, key);
            BenchValues.Compose(key, value);
            writer.Put(key, value);
        }
    }
}
