using Cairn.Bench.Durability;
using Cairn.Bench.Fill;
using Cairn.Bench.KeyValue;
using static Cairn.Bench.SelfCheck.CheckFailedException;

namespace Cairn.Bench.SelfCheck;

/// <summary>
/// The <c>--self-check</c> mode: drives each key-value store, each store only the fill comparison uses
/// (<see cref="FillStores"/>) and each durable-commit store (<see cref="DurableStores"/>) through the interface its benchmarks use
/// and verifies what it reads back. Names on the command line pick stores from either list (a name
/// in both, such as lmdb, checks both). Exit code 0 when all pass.
/// </summary>
public static class StoreSelfCheck
{
    public const int KeyCount = 10_000;

    public static int Run(string[] storeNames, TextWriter log)
    {
        var unknown = storeNames.Except(BenchStores.Names).Except(DurableStores.Names).ToArray();
        if (unknown.Length > 0)
        {
            log.WriteLine($"self-check: unknown stores {string.Join(", ", unknown)}; key-value stores: {string.Join(", ", BenchStores.Names)}; " +
                $"durable stores: {string.Join(", ", DurableStores.Names)}");
            return 1;
        }
        var names = storeNames.Length > 0 ? storeNames : BenchStores.Names.ToArray();
        var durableNames = storeNames.Length > 0 ? DurableStores.Names.Where(storeNames.Contains).ToArray() : DurableStores.Names.Where(n => !n.EndsWith(DurableStores.AsyncSuffix, StringComparison.Ordinal)).ToArray();
        var failures = 0;
        foreach (var name in names.Where(BenchStores.Names.Contains))
            failures += Attempt($"store {name}", log, directory => CheckStore(name, directory, log));
        var fillOnly = FillStores.Names.Except(BenchStores.Names);
        foreach (var name in storeNames.Length > 0 ? fillOnly.Where(storeNames.Contains) : fillOnly)
            failures += Attempt($"fill store {name}", log, directory => CheckFillStore(name, directory, log));
        foreach (var name in durableNames)
            failures += Attempt($"durable store {name}", log, directory => DurableStoreSelfCheck.Run(name, directory, log));
        log.WriteLine(failures == 0 ? "self-check: passed" : $"self-check: {failures} FAILED");
        return failures == 0 ? 0 : 1;
    }

    private static int Attempt(string what, TextWriter log, Action<string> check)
    {
        var directory = BenchScratch.Directory("self-check-" + what.Replace(' ', '-'));
        try
        {
            log.WriteLine($"{what}:");
            check(directory);
            log.WriteLine($"{what}: ok");
            return 0;
        }
        catch (Exception e)
        {
            log.WriteLine($"{what}: FAILED: {e}");
            return 1;
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>A store the fill comparison alone uses: filled (lazy and then durable batches), reopened, every key read back.</summary>
    private static void CheckFillStore(string name, string directory, TextWriter log)
    {
        var fillOrder = KeyGenerator.Shuffled(KeyCount, KeyGenerator.FillSeed);
        foreach (var durable in new[] { false, true })
        {
            using var store = FillStores.Create(name);
            store.Open(directory, durable);
            store.FillBatches(fillOrder, KeyValueBenchmark.BatchSize);
        }
        using var reopened = FillStores.Create(name);
        reopened.Open(directory, durable: false);
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        for (var i = 0; i < KeyCount; i++)
        {
            var length = reopened.ReadForCheck(fillOrder[i], value);
            Require(length == BenchValues.ValueSize && BenchValues.Matches(fillOrder[i], value), $"read {i}: length {length} or wrong value");
        }
        Span<byte> absent = stackalloc byte[KeySet.KeySize];
        KeyGenerator.Write(KeyCount + 1, absent);
        Require(reopened.ReadForCheck(absent, value) == -1, "a key never written was found");
        log.WriteLine($"  {name}: {KeyCount} keys filled lazily and durably, reopened, read back");
    }

    private static void CheckStore(string name, string directory, TextWriter log)
    {
        var fillOrder = KeyGenerator.Shuffled(KeyCount, KeyGenerator.FillSeed);
        using (var store = BenchStores.Create(name))
        {
            store.Open(directory, durable: false);
            store.FillBatches(fillOrder, KeyValueBenchmark.BatchSize);
        }

        // Reopened, as the read benchmarks do, so what is checked is what reached the files.
        using var reopened = BenchStores.Create(name);
        reopened.Open(directory, durable: false);
        using var reader = reopened.CreateReader();
        var readOrder = KeyGenerator.Shuffled(KeyCount, KeyGenerator.ReadSeed);
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        for (var i = 0; i < KeyCount; i++)
        {
            var length = reader.ReadInOwnTransaction(readOrder[i], value);
            Require(length == BenchValues.ValueSize, $"read {i}: length {length}");
            Require(BenchValues.Matches(readOrder[i], value), $"read {i}: wrong value");
        }
        Span<byte> absent = stackalloc byte[KeySet.KeySize];
        KeyGenerator.Write(KeyCount + 1, absent);
        Require(reader.ReadInOwnTransaction(absent, value) == -1, "a key never written was found");

        var found = reader.ReadManyInOneTransaction(readOrder, KeyCount / 2, KeyCount);
        Require(found == KeyCount, $"one-transaction reads found {found} of {KeyCount}");
        var totals = reader.ScanAll();
        var expected = new ScanTotals(KeyCount, (long)KeyCount * KeySet.KeySize, (long)KeyCount * BenchValues.ValueSize);
        Require(totals == expected, $"scan saw {totals}, expected {expected}");

        // The 1,000,000-key benchmark builds read orders this way too; the permutation must be one.
        var sorted = KeyGenerator.Sequential(KeyCount);
        var seen = new bool[KeyCount];
        for (var i = 0; i < KeyCount; i++)
        {
            var n = (int)System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(fillOrder[i][8..]);
            Require(!seen[n] && sorted[n].SequenceEqual(fillOrder[i]), $"fill order repeats or garbles key {n}");
            seen[n] = true;
        }
        log.WriteLine($"  {name}: {KeyCount} keys filled, reopened, read in own and shared transactions, scanned");
    }
}
