using Cairn.Bench.KeyValue;
using Cairn.Bench.Peers.Lmdb;
using static Cairn.Bench.SelfCheck.CheckFailedException;

namespace Cairn.Bench.SelfCheck;

/// <summary>
/// Drives the LMDB binding directly: puts, gets, ordered scan, deletes, snapshot isolation across
/// reset/renew, and an error turned into an exception with LMDB's text.
/// </summary>
public static class LmdbBindingSelfCheck
{
    public static void Run(string directory, int keyCount, TextWriter log)
    {
        using var env = LmdbEnvironment.Open(directory, new LmdbEnvironmentOptions
        {
            Flags = LmdbEnvironmentFlags.NoSync | LmdbEnvironmentFlags.NoReadAhead | LmdbEnvironmentFlags.NoTls,
            MapSize = 256L << 20,
            MaxReaders = 16,
            MaxDatabases = 2,
        });
        var dbi = env.OpenMainDatabase();
        var keys = KeyGenerator.Shuffled(keyCount, KeyGenerator.FillSeed);
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];

        for (var start = 0; start < keyCount; start += 1_000)
        {
            using var txn = env.BeginWrite();
            for (var i = start; i < Math.Min(start + 1_000, keyCount); i++)
            {
                BenchValues.Compose(keys[i], value);
                txn.Put(dbi, keys[i], value);
            }
            txn.Commit();
        }
        env.Sync();

        using var reader = env.BeginRead();
        for (var i = 0; i < keyCount; i++)
        {
            Require(reader.TryGet(dbi, keys[i], out var stored), $"key {i} of the fill order is missing");
            Require(BenchValues.Matches(keys[i], stored), $"key {i} of the fill order has a wrong value");
        }
        Span<byte> absent = stackalloc byte[KeySet.KeySize];
        KeyGenerator.Write((ulong)keyCount + 7, absent);
        Require(!reader.TryGet(dbi, absent, out _), "a key never written was found");
        CheckScan(reader, dbi, keyCount, deletedEvery: 0);
        log.WriteLine($"  lmdb binding: {keyCount} puts, gets and an ordered scan verified");

        // The reader keeps its snapshot while a writer deletes; a renew then sees the deletes.
        var deleted = 0;
        Span<byte> key = stackalloc byte[KeySet.KeySize];
        using (var txn = env.BeginWrite())
        {
            for (var n = 0; n < keyCount; n += 10, deleted++)
            {
                KeyGenerator.Write((ulong)n, key);
                Require(txn.Delete(dbi, key), $"delete of key {n} found nothing");
            }
            Require(!txn.Delete(dbi, absent), "delete of a key never written reported success");
            txn.Commit();
        }
        CheckScan(reader, dbi, keyCount, deletedEvery: 0);
        reader.Reset();
        reader.Renew();
        CheckScan(reader, dbi, keyCount, deletedEvery: 10);
        reader.Reset();
        log.WriteLine($"  lmdb binding: {deleted} deletes invisible to the old snapshot, visible after reset/renew");

        try
        {
            using var missing = LmdbEnvironment.Open(Path.Combine(directory, "no-such-directory"), new LmdbEnvironmentOptions());
            throw new CheckFailedException("opening an environment in a missing directory succeeded");
        }
        catch (LmdbException e)
        {
            Require(e.Function == "mdb_env_open" && e.Message.Contains("No such file or directory", StringComparison.Ordinal),
                $"the error for a missing directory does not carry mdb_strerror's text: {e.Message}");
            log.WriteLine($"  lmdb binding: errors carry LMDB's text ({e.Message})");
        }
    }

    // Walks the whole database checking order, contents and, after deletes, which keys remain.
    private static void CheckScan(LmdbTransaction txn, uint dbi, int keyCount, int deletedEvery)
    {
        Span<byte> expected = stackalloc byte[KeySet.KeySize];
        using var cursor = txn.OpenCursor(dbi);
        var next = 0;
        var op = LmdbCursorOp.First;
        while (cursor.TryMove(op, out var key, out var value))
        {
            if (deletedEvery > 0 && next % deletedEvery == 0)
                next++;
            Require(next < keyCount, "the scan returned more items than were written");
            KeyGenerator.Write((ulong)next, expected);
            Require(key.SequenceEqual(expected), $"scan item for key {next} has key {Convert.ToHexString(key)}");
            Require(BenchValues.Matches(key, value), $"scan item for key {next} has a wrong value");
            next++;
            op = LmdbCursorOp.Next;
        }
        if (deletedEvery > 0 && next < keyCount && next % deletedEvery == 0)
            next++;
        Require(next == keyCount, $"the scan ended at key {next} of {keyCount}");

        KeyGenerator.Write((ulong)(keyCount / 2), expected);
        Require(cursor.TrySeek(expected, out var found, out _), "seek to the middle found nothing");
        Require(found.SequenceCompareTo(expected) >= 0, "seek landed before its key");
    }
}
