using BenchmarkDotNet.Configs;
using Cairn.Bench.Durability.Columns;

namespace Cairn.Bench.Durability.Concurrent;

/// <summary>
/// The concurrent-commit benchmark's columns: commits per second over all callers; the rate against
/// LMDB and RocksDB at the same caller count and against the same store with one caller
/// (<c>Rate/self1</c>), all from the same run; p50 and p99 latency of one put; puts per durable log
/// write. The merger issue's targets read directly off them: cairn-merger at 16 callers
/// <c>Rate/rocksdb</c> ≥ 2; at 64 callers <c>Rate/lmdb</c> ≥ 20 and <c>Rate/self1</c> ≥ 10.
/// </summary>
public sealed class ConcurrentCommitConfig : ManualConfig
{
    public ConcurrentCommitConfig() => AddColumn(
        new CommitsPerSecondColumn(),
        new ThroughputRatioColumn(DurableStores.Lmdb),
        new ThroughputRatioColumn(DurableStores.RocksDb),
        new ThroughputRatioColumn(nameof(ConcurrentCommitBenchmarks.Callers), 1, "Rate/self1", "the same store's with 1 caller", 6),
        ConcurrentResultColumn.P50,
        ConcurrentResultColumn.P99,
        ConcurrentResultColumn.PutsPerLogWrite);
}
