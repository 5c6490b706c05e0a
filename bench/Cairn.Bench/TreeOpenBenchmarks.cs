using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;

namespace Cairn.Bench;

/// <summary>
/// What opening a tree costs a transaction of one operation, by name against through a <see cref="TreeHandle"/>,
/// with the tree small enough to stay in cache so the open is not hidden behind the read's cache misses:
/// a read in its own <see cref="ReadSnapshot"/>, and a write transaction that opens the tree and ends (aborted:
/// no journal write, so only the CPU path is timed; a durable commit adds its disk write, hundreds of µs here).
/// Each category's baseline is the open by name.
/// </summary>
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
[CategoriesColumn]
[SimpleJob(launchCount: 1, warmupCount: 3, iterationCount: 10)]
public class TreeOpenBenchmarks
{
    private const int Keys = 1000;
    private const int Operations = 1024;
    private StorageEnvironment _env = null!;
    private TreeHandle _handle = null!;
    private byte[][] _keys = null!;
    private string _directory = null!;

    [GlobalSetup]
    public void Setup()
    {
        _directory = BenchScratch.Directory("tree-open");
        _env = StorageEnvironment.Open(new StorageOptions(_directory));
        _keys = Enumerable.Range(0, Keys).Select(i => BitConverter.GetBytes(i * 7919L)).ToArray();
        using (var tx = _env.BeginWrite())
        {
            var tree = tx.CreateTree("bench");
            tx.CreateTree("other").Put("k"u8, "v"u8);
            foreach (var key in _keys)
                tree.Put(key, new byte[100]);
            tx.Commit();
        }
        _handle = _env.GetTreeHandle("bench");
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _env.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    [BenchmarkCategory("read"), Benchmark(Baseline = true, OperationsPerInvoke = Operations, Description = "read, by name")]
    public int ReadByName()
    {
        int found = 0;
        for (int i = 0; i < Operations; i++)
        {
            using var snapshot = _env.BeginReadSnapshot();
            found += snapshot.OpenTree("bench").TryGet(_keys[i % Keys], out _) ? 1 : 0;
        }
        return found;
    }

    [BenchmarkCategory("read"), Benchmark(OperationsPerInvoke = Operations, Description = "read, handle")]
    public int ReadThroughHandle()
    {
        int found = 0;
        for (int i = 0; i < Operations; i++)
        {
            using var snapshot = _env.BeginReadSnapshot();
            found += snapshot.OpenTree(_handle).TryGet(_keys[i % Keys], out _) ? 1 : 0;
        }
        return found;
    }

    [BenchmarkCategory("write, open and abort"), Benchmark(Baseline = true, OperationsPerInvoke = Operations, Description = "write, by name")]
    public long WriteByName()
    {
        long count = 0;
        for (int i = 0; i < Operations; i++)
        {
            using var tx = _env.BeginWrite();
            count += tx.OpenTree("bench").Count;
        }
        return count;
    }

    [BenchmarkCategory("write, open and abort"), Benchmark(OperationsPerInvoke = Operations, Description = "write, handle")]
    public long WriteThroughHandle()
    {
        long count = 0;
        for (int i = 0; i < Operations; i++)
        {
            using var tx = _env.BeginWrite();
            count += tx.OpenTree(_handle).Count;
        }
        return count;
    }
}
