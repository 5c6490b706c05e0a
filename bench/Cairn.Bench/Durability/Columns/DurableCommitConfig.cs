using BenchmarkDotNet.Configs;

namespace Cairn.Bench.Durability.Columns;

/// <summary>Commits per second and throughput against the raw disk and against LMDB, all from the same run.</summary>
public sealed class DurableCommitConfig : ManualConfig
{
    public DurableCommitConfig() => AddColumn(
        new CommitsPerSecondColumn(),
        new ThroughputRatioColumn(DurableStores.Raw),
        new ThroughputRatioColumn(DurableStores.Lmdb));
}
