using Cairn.Bench.KeyValue.Stores;

namespace Cairn.Bench.KeyValue;

/// <summary>
/// The stores the key-value benchmarks compare. The first is the baseline the ratio columns divide
/// by. Adding a store is one class implementing <see cref="IBenchStore"/> plus one line here.
/// </summary>
public static class BenchStores
{
    /// <summary>Name of the baseline store.</summary>
    public const string Baseline = "lmdb";

    /// <summary>Set to a comma-separated list of names to run only those stores.</summary>
    public const string FilterVariable = "CAIRN_BENCH_STORES";

    private static readonly (string Name, Func<IBenchStore> Create)[] s_stores =
    [
        (Baseline, () => new LmdbStore()),
        ("cairn", () => new CairnStore(CairnReadPath.SnapshotAndHandle)),
        ("cairn-byname", () => new CairnStore(CairnReadPath.SnapshotByName)),
        ("cairn-readtx", () => new CairnStore(CairnReadPath.ReadTransactionByName)),
        ("faster", () => new FasterStore()),
        ("zonetree", () => new ZoneTreeStore()),
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

    public static IBenchStore Create(string name)
    {
        foreach (var (storeName, create) in s_stores)
        {
            if (storeName == name)
                return create();
        }
        throw new ArgumentException($"unknown store '{name}'; known: {string.Join(", ", Names)}", nameof(name));
    }
}
