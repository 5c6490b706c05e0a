using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;

namespace Cairn.Bench.KeyValue.Columns;

/// <summary>The column every key-value benchmark shows: the ratio to the baseline store.</summary>
public class KeyValueConfig : ManualConfig
{
    public KeyValueConfig() => AddColumn(new StoreRatioColumn());
}

/// <summary>For benchmarks whose operation is one read: adds operations per second.</summary>
public sealed class PerReadConfig : KeyValueConfig
{
    public PerReadConfig() => AddColumn(StatisticColumn.OperationsPerSecond);
}

/// <summary>For benchmarks whose operation covers every key: adds time per key and keys per second.</summary>
public sealed class PerKeyConfig : KeyValueConfig
{
    public PerKeyConfig() => AddColumn(PerKeyColumn.TimePerKey, PerKeyColumn.KeysPerSecond);
}
