using Cairn.Bench.Durability;
using Cairn.Bench.Durability.Concurrent;
using Cairn.Bench.KeyValue;
using static Cairn.Bench.SelfCheck.CheckFailedException;

namespace Cairn.Bench.SelfCheck;

/// <summary>
/// Drives a durable-commit store through the interface the benchmarks use: single-put commits from
/// one writer, then from <see cref="ConcurrentCallers"/> callers at once (the concurrent benchmark's
/// <see cref="CommitCallers"/>), close, reopen, read every key back. It checks that what the benchmark times is a store that
/// keeps its data (a peer that lost puts would look fast), not that the data survives a power cut.
/// </summary>
public static class DurableStoreSelfCheck
{
    public const int CommitCount = 1_000;

    /// <summary>Callers of the concurrent phase, each making <see cref="CommitCount"/> / this many commits.</summary>
    public const int ConcurrentCallers = 8;

    public static void Run(string name, string directory, TextWriter log)
    {
        Span<byte> key = stackalloc byte[DurableKeys.KeySize];
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        using (var store = DurableStores.Create(name))
        {
            store.Open(directory);
            log.WriteLine($"  {store.Describe()}");
            using (var writer = store.CreateWriter())
            {
                for (var i = 0; i < CommitCount; i++)
                {
                    DurableKeys.Write((ulong)i, key);
                    BenchValues.Compose(key, value);
                    writer.Put(key, value);
                }
            }

            // The same number of commits again, keys CommitCount .. 2·CommitCount − 1, from several threads at once.
            using var callers = new CommitCallers(store, ConcurrentCallers, CommitCount / ConcurrentCallers, firstKey: CommitCount);
            callers.RunRound(record: true);
            log.WriteLine($"  {name}: {CommitCount} commits from {ConcurrentCallers} concurrent callers, p50 {callers.LatencyPercentile(50):N0} µs");
        }

        using var reopened = DurableStores.Create(name);
        reopened.Open(directory);
        Span<byte> read = stackalloc byte[BenchValues.ValueSize];
        for (var i = 0; i < 2 * CommitCount; i++)
        {
            DurableKeys.Write((ulong)i, key);
            var length = reopened.ReadForCheck(key, read);
            Require(length == BenchValues.ValueSize, $"key {i}: length {length} after reopen");
            Require(BenchValues.Matches(key, read), $"key {i}: wrong value after reopen");
        }
        DurableKeys.Write(2 * CommitCount + 1, key);
        Require(reopened.ReadForCheck(key, read) == -1, "a key never written was found");
        log.WriteLine($"  {name}: {2 * CommitCount} single-put commits, closed, reopened, every key read back");
    }
}
