using BenchmarkDotNet.Configs;

namespace Cairn.Bench.Durability.Columns;

/// <summary>
/// Commits per second and throughput against the raw disk, LMDB and SQLite, all from the same run:
/// the durability issue's three targets for Cairn (≥ 0.9× raw, ≥ 2× LMDB, ≥ 1.25× SQLite).
/// </summary>
public sealed class DurableCommitConfig : ManualConfig
{
    public DurableCommitConfig() => AddColumn(
        new CommitsPerSecondColumn(),
        new ThroughputRatioColumn(DurableStores.Raw),
        new ThroughputRatioColumn(DurableStores.Lmdb),
        new ThroughputRatioColumn(DurableStores.Sqlite));
}
