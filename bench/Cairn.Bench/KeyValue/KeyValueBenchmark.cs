using BenchmarkDotNet.Attributes;

namespace Cairn.Bench.KeyValue;

/// <summary>
/// The parameters every key-value benchmark shares: which store, how many keys. Both come from
/// sources rather than literals so a quick run can narrow them through the environment
/// (BenchmarkDotNet passes it on to the processes it starts) without editing code.
/// </summary>
public abstract class KeyValueBenchmark
{
    /// <summary>Overrides the key count; 1,000,000 is the real setting.</summary>
    public const string KeyCountVariable = "CAIRN_BENCH_KEYS";

    public const int DefaultKeyCount = 1_000_000;

    /// <summary>Puts per write transaction in every fill.</summary>
    public const int BatchSize = 1_000;

    [ParamsSource(nameof(StoreNames))]
    public string Store { get; set; } = BenchStores.Baseline;

    [ParamsSource(nameof(KeyCounts))]
    public int KeyCount { get; set; } = DefaultKeyCount;

    public static IEnumerable<string> StoreNames() => BenchStores.Selected();

    public static IEnumerable<int> KeyCounts()
    {
        var text = Environment.GetEnvironmentVariable(KeyCountVariable);
        if (string.IsNullOrWhiteSpace(text))
            return [DefaultKeyCount];
        return text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(int.Parse);
    }
}
