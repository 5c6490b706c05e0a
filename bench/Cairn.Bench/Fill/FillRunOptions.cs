using System.Globalization;

namespace Cairn.Bench.Fill;

/// <summary>What <c>--fill-interleaved</c> runs; the defaults are the key-value suite's fill (1,000,000 keys, 1,000 puts per transaction).</summary>
public sealed record FillRunOptions
{
    public int Keys { get; init; } = 1_000_000;

    public int BatchSize { get; init; } = 1_000;

    /// <summary>Rounds; in each, every case runs once for each store, the stores' order alternating from round to round.</summary>
    public int Rounds { get; init; } = 3;

    /// <summary>Lazy: Cairn's lazy commits against LMDB's MDB_NOSYNC. Durable: durable commits against LMDB's synced ones.</summary>
    public IReadOnlyList<string> Modes { get; init; } = ["lazy", "durable"];

    /// <summary>Sequential and random: plain puts. Append: the sequential keys through each store's append path (<see cref="KeyValue.IAppendingStore"/>).</summary>
    public IReadOnlyList<string> Orders { get; init; } = ["sequential", "random"];

    /// <summary>The stores compared; Cairn's ratios divide by each other store. RocksDB runs the sequential and random orders only.</summary>
    public IReadOnlyList<string> Stores { get; init; } = ["lmdb", "cairn"];

    public static FillRunOptions Parse(IReadOnlyList<string> args)
    {
        var options = new FillRunOptions();
        for (var i = 0; i < args.Count; i++)
        {
            var value = i + 1 < args.Count ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value");
            options = args[i] switch
            {
                "--keys" => options with { Keys = int.Parse(value, CultureInfo.InvariantCulture) },
                "--batch" => options with { BatchSize = int.Parse(value, CultureInfo.InvariantCulture) },
                "--rounds" => options with { Rounds = int.Parse(value, CultureInfo.InvariantCulture) },
                "--modes" => options with { Modes = List(value, "lazy", "durable") },
                "--orders" => options with { Orders = List(value, "sequential", "random", "append") },
                "--stores" => options with { Stores = List(value, [.. FillStores.Names]) },
                _ => throw new ArgumentException($"unknown option {args[i]}; known: --keys N, --batch N, --rounds N, --modes lazy,durable, --orders sequential,random,append, --stores lmdb,cairn,rocksdb"),
            };
            i++;
        }
        return options.Stores.Contains("cairn") ? options : throw new ArgumentException("--stores must include cairn: every ratio is Cairn's");
    }

    private static string[] List(string text, params string[] known)
    {
        var items = text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        var unknown = items.Except(known).ToArray();
        return unknown.Length == 0 ? items : throw new ArgumentException($"unknown value(s) {string.Join(", ", unknown)}; known: {string.Join(", ", known)}");
    }
}
