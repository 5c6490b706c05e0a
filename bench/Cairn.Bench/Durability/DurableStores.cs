using Cairn.Bench.Durability.Stores;

namespace Cairn.Bench.Durability;

/// <summary>
/// The stores the durable-commit benchmarks compare. The ratio columns divide by <see cref="Raw"/>
/// (the disk's own rate), <see cref="Lmdb"/>, <see cref="Sqlite"/> and <see cref="RocksDb"/>. Adding
/// a store is one class implementing <see cref="IDurableStore"/> plus one line here.
/// </summary>
public static class DurableStores
{
    public const string Raw = "raw";
    public const string Lmdb = "lmdb";
    public const string Sqlite = "sqlite";
    public const string RocksDb = "rocksdb";
    public const string Faster = "faster";
    public const string ZoneTree = "zonetree";
    public const string Cairn = "cairn";

    /// <summary>Cairn's single-put commits opening the tree through a <see cref="TreeHandle"/> instead of by name.</summary>
    public const string CairnTreeHandle = "cairn-handle";
    public const string CairnMerger = "cairn-merger";

    /// <summary>The merger's blocked-thread callers waiting on <c>WriteAsync</c>'s task instead of calling <c>Write</c> (for comparison).</summary>
    public const string CairnMergerOnTask = "cairn-merger-ontask";

    /// <summary>The merger driven by asynchronous callers (tasks awaiting each put) in the concurrent benchmark.</summary>
    public const string CairnMergerAsync = "cairn-merger-async";

    /// <summary>A store name ending in this is driven by asynchronous callers where the benchmark has them.</summary>
    public const string AsyncSuffix = "-async";

    /// <summary>Set to a comma-separated list of names to run only those stores.</summary>
    public const string FilterVariable = "CAIRN_BENCH_DURABLE_STORES";

    private static readonly (string Name, Func<IDurableStore> Create)[] s_stores =
    [
        (Raw, () => new RawJournalStore()),
        (Lmdb, () => new LmdbDurableStore()),
        (Sqlite, () => new SqliteDurableStore()),
        (RocksDb, () => new RocksDbDurableStore()),
        (Faster, () => new FasterDurableStore()),
        (ZoneTree, () => new ZoneTreeDurableStore()),
        (Cairn, () => new CairnDurableStore()),
        (CairnTreeHandle, () => new CairnDurableStore(useTreeHandle: true)),
        (CairnMerger, () => new CairnMergerDurableStore()),
        (CairnMergerOnTask, () => new CairnMergerDurableStore(blockOnTask: true)),
        (CairnMergerAsync, () => new CairnMergerDurableStore()),
    ];

    public static IEnumerable<string> Names => s_stores.Select(s => s.Name);

    /// <summary>The names to benchmark: all, or those named in <see cref="FilterVariable"/>.</summary>
    public static IEnumerable<string> Selected()
    {
        var filter = Environment.GetEnvironmentVariable(FilterVariable);
        if (string.IsNullOrWhiteSpace(filter))
            return Names;
        var wanted = filter.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        var unknown = wanted.Except(Names).ToArray();
        if (unknown.Length > 0)
            throw new ArgumentException($"{FilterVariable} names unknown stores: {string.Join(", ", unknown)}; known: {string.Join(", ", Names)}");
        return Names.Where(wanted.Contains);
    }

    public static IDurableStore Create(string name)
    {
        foreach (var (storeName, create) in s_stores)
        {
            if (storeName == name)
                return create();
        }
        throw new ArgumentException($"unknown durable store '{name}'; known: {string.Join(", ", Names)}", nameof(name));
    }
}
