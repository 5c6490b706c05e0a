namespace Cairn.Bench.KeyValue;

/// <summary>
/// A store filled with the benchmark keys for the read and scan benchmarks: filled in the random
/// order (the layout a store ends up with under real inserts, not the one an ordered load gives),
/// then closed and reopened so reads meet the store as a freshly started process would.
/// </summary>
public sealed class PreparedStore : IDisposable
{
    private PreparedStore(string directory, IBenchStore store)
    {
        Directory = directory;
        Store = store;
    }

    public string Directory { get; }

    public IBenchStore Store { get; private set; }

    public static PreparedStore Create(string storeName, int keyCount)
    {
        var directory = BenchScratch.Directory($"kv-{storeName}-{keyCount}");
        var store = BenchStores.Create(storeName);
        try
        {
            store.Open(directory, durable: false);
            store.FillBatches(KeyGenerator.Shuffled(keyCount, KeyGenerator.FillSeed), KeyValueBenchmark.BatchSize);
            store.Dispose();
            store = BenchStores.Create(storeName);
            store.Open(directory, durable: false);
            return new PreparedStore(directory, store);
        }
        catch
        {
            store.Dispose();
            System.IO.Directory.Delete(directory, recursive: true);
            throw;
        }
    }

    public void Dispose()
    {
        Store.Dispose();
        System.IO.Directory.Delete(Directory, recursive: true);
    }
}
