using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Engines;
using Cairn.Bench.KeyValue.Columns;

namespace Cairn.Bench.KeyValue;

/// <summary>
/// Filling an empty store with every key, <see cref="KeyValueBenchmark.BatchSize"/> puts per
/// transaction, commits not flushed (non-durable mode). One operation is one whole fill, so every
/// iteration needs a fresh, empty store: one invocation per iteration, the store opened in
/// IterationSetup (not timed) and deleted in IterationCleanup, before the OS starts writing its
/// dirty pages back and slows the next iteration down.
/// </summary>
[MemoryDiagnoser]
[Config(typeof(PerKeyConfig))]
[SimpleJob(RunStrategy.Monitoring, launchCount: 1, warmupCount: 1, iterationCount: 5, invocationCount: 1)]
public class FillBenchmarks : KeyValueBenchmark
{
    private KeySet _sequential = null!;
    private KeySet _random = null!;
    private string _directory = null!;
    private IBenchStore? _store;

    [GlobalSetup]
    public void GlobalSetup()
    {
        _sequential = KeyGenerator.Sequential(KeyCount);
        _random = KeyGenerator.Shuffled(KeyCount, KeyGenerator.FillSeed);
        _directory = BenchScratch.Directory($"fill-{Store}");
    }

    [IterationSetup]
    public void IterationSetup()
    {
        Empty(_directory);
        _store = BenchStores.Create(Store);
        _store.Open(_directory, durable: false);
    }

    [IterationCleanup]
    public void IterationCleanup()
    {
        _store?.Dispose();
        _store = null;
        Empty(_directory);
    }

    [GlobalCleanup]
    public void GlobalCleanup() => Directory.Delete(_directory, recursive: true);

    [Benchmark(Description = "fill sequential")]
    public void FillSequential() => _store!.FillBatches(_sequential, BatchSize);

    [Benchmark(Description = "fill random")]
    public void FillRandom() => _store!.FillBatches(_random, BatchSize);

    private static void Empty(string directory)
    {
        Directory.Delete(directory, recursive: true);
        Directory.CreateDirectory(directory);
    }
}
