using BenchmarkDotNet.Attributes;
using Cairn.Bench.KeyValue.Columns;

namespace Cairn.Bench.KeyValue;

/// <summary>
/// One full ordered scan with a cursor in one read transaction. One operation is the whole scan;
/// ns/key and Keys/s give the per-item figures.
/// </summary>
[MemoryDiagnoser]
[Config(typeof(PerKeyConfig))]
[SimpleJob(launchCount: 1, warmupCount: 3, iterationCount: 10)]
public class ScanBenchmarks : KeyValueBenchmark
{
    private PreparedStore _prepared = null!;
    private IBenchReader _reader = null!;

    [GlobalSetup]
    public void GlobalSetup()
    {
        _prepared = PreparedStore.Create(Store, KeyCount);
        _reader = _prepared.Store.CreateReader();
        var totals = _reader.ScanAll();
        var expected = new ScanTotals(KeyCount, (long)KeyCount * KeySet.KeySize, (long)KeyCount * BenchValues.ValueSize);
        if (totals != expected)
            throw new InvalidOperationException($"{Store}: scan saw {totals}, expected {expected}");
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        _reader.Dispose();
        _prepared.Dispose();
    }

    [Benchmark(Description = "scan all")]
    public ScanTotals ScanAll() => _reader.ScanAll();
}
