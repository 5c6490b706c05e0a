using BenchmarkDotNet.Attributes;
using Cairn.Bench.KeyValue.Columns;

namespace Cairn.Bench.KeyValue;

/// <summary>
/// Random point reads of keys that all exist, in the read order (a permutation unrelated to the
/// fill order). One operation is one read, so Mean is per read and Op/s is reads per second; with
/// two threads that is the two threads' combined rate. Each invocation continues where the
/// previous one stopped, so over a run the reads cover the whole key set instead of re-reading a
/// cache-warm slice.
/// </summary>
[MemoryDiagnoser]
[Config(typeof(PerReadConfig))]
[SimpleJob(launchCount: 1, warmupCount: 3, iterationCount: 10)]
public class ReadBenchmarks : KeyValueBenchmark
{
    /// <summary>Reads per invocation, all threads together.</summary>
    public const int ReadsPerInvoke = 1 << 16;

    private PreparedStore _prepared = null!;
    private KeySet _readOrder = null!;
    private IBenchReader _reader = null!;
    private PointReadWorker _worker = null!;
    private int _next;

    [GlobalSetup]
    public void GlobalSetup()
    {
        _prepared = PreparedStore.Create(Store, KeyCount);
        _readOrder = KeyGenerator.Shuffled(KeyCount, KeyGenerator.ReadSeed);
        _reader = _prepared.Store.CreateReader();
        _worker = new PointReadWorker(_prepared.Store, _readOrder);
        // Doubles as a check that the fill stored every key: a store that lost keys would
        // otherwise look fast.
        var found = _reader.ReadManyInOneTransaction(_readOrder, 0, KeyCount);
        if (found != KeyCount)
            throw new InvalidOperationException($"{Store}: {found} of {KeyCount} keys found after the fill");
    }

    [GlobalCleanup]
    public void GlobalCleanup()
    {
        _worker.Dispose();
        _reader.Dispose();
        _prepared.Dispose();
    }

    [Benchmark(Description = "read, own txn, 1 thread", OperationsPerInvoke = ReadsPerInvoke)]
    public int ReadOwnTransactionOneThread()
    {
        var found = PointReadWorker.ReadEachInOwnTransaction(_reader, _readOrder, _next, ReadsPerInvoke);
        Advance(ReadsPerInvoke);
        return found;
    }

    [Benchmark(Description = "read, own txn, 2 threads", OperationsPerInvoke = ReadsPerInvoke)]
    public int ReadOwnTransactionTwoThreads()
    {
        const int perThread = ReadsPerInvoke / 2;
        _worker.Start((_next + perThread) % KeyCount, perThread);
        var found = PointReadWorker.ReadEachInOwnTransaction(_reader, _readOrder, _next, perThread);
        found += _worker.Finish();
        Advance(ReadsPerInvoke);
        return found;
    }

    [Benchmark(Description = "read, one txn", OperationsPerInvoke = ReadsPerInvoke)]
    public int ReadManyInOneTransaction()
    {
        var found = _reader.ReadManyInOneTransaction(_readOrder, _next, ReadsPerInvoke);
        Advance(ReadsPerInvoke);
        return found;
    }

    private void Advance(int reads) => _next = (int)((_next + (long)reads) % KeyCount);
}
