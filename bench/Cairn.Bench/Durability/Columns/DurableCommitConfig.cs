using BenchmarkDotNet.Configs;

namespace Cairn.Bench.Durability.Columns;

/// <summary>
/// Commits per second and throughput against the raw disk, LMDB, SQLite and RocksDB, all from the
/// same run: the durability issue's three targets for Cairn (≥ 0.9× raw, ≥ 2× LMDB, ≥ 1.25× SQLite),
/// and RocksDB with sync=true, the merger issue's strongest peer.
/// </summary>
public sealed class DurableCommitConfig : ManualConfig
{
    public DurableCommitConfig() => AddColumn(
        new CommitsPerSecondColumn(),
        new ThroughputRatioColumn(DurableStores.Raw),
        new ThroughputRatioColumn(DurableStores.Lmdb),
        new ThroughputRatioColumn(DurableStores.Sqlite),
        new ThroughputRatioColumn(DurableStores.RocksDb));
}
