using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Fill;

/// <summary>The stores <c>--fill-interleaved</c> can compare: the key-value stores plus RocksDB, which it fills only.</summary>
public static class FillStores
{
    public const string RocksDb = "rocksdb";

    public static IReadOnlyList<string> Names { get; } = ["lmdb", "cairn", RocksDb];

    public static IFillStore Create(string name) => name == RocksDb ? new RocksDbFillStore() : BenchStores.Create(name);

    /// <summary>Whether <paramref name="name"/> has an append path (<see cref="IAppendingStore"/>); RocksDB has none.</summary>
    public static bool CanAppend(string name) => name != RocksDb;
}
