using Cairn.Bench.Peers.Lmdb;
using LightningDB;

namespace Cairn.Bench.KeyValue.Stores;

/// <summary>
/// LMDB through LightningDB, set up the way a performance-minded .NET user would: one main database,
/// no fsync per commit unless durable (MDB_NOSYNC), no read-ahead (MDB_NORDAHEAD), reader slots tied
/// to transaction objects (MDB_NOTLS) so each reader keeps one read transaction and cycles it with
/// reset/renew. The same flags as the home-made binding it replaced; docs/benchmarks.md explains each.
/// </summary>
public sealed class LmdbStore : IAppendingStore
{
    /// <summary>Set to 1 to write through a writable map (MDB_WRITEMAP); off by default.</summary>
    public const string WriteMapVariable = "CAIRN_BENCH_LMDB_WRITEMAP";

    // Address space, not disk: without MDB_WRITEMAP the file grows only as pages are written.
    // 64 GiB is far above what a few million 116-byte items need, so the map never fills.
    private const long MapSize = 64L << 30;

    private LightningEnvironment? _env;
    private LightningDatabase? _db;

    public static EnvironmentOpenFlags FlagsFor(bool durable, bool writeMap)
    {
        var flags = EnvironmentOpenFlags.NoReadAhead | EnvironmentOpenFlags.NoThreadLocalStorage;
        if (!durable)
            flags |= EnvironmentOpenFlags.NoSync;
        if (writeMap)
            flags |= EnvironmentOpenFlags.WriteMap;
        return flags;
    }

    public void Open(string directory, bool durable)
    {
        if (_env is not null)
            throw new InvalidOperationException("already open");
        var writeMap = Environment.GetEnvironmentVariable(WriteMapVariable) == "1";
        _env = LmdbPeer.Open(directory, FlagsFor(durable, writeMap), MapSize);
        _db = LmdbPeer.OpenMainDatabase(_env);
    }

    /// <summary>The open environment, for the durable-commit peer.</summary>
    internal LightningEnvironment OpenEnvironment => Env;

    /// <summary>The main database.</summary>
    internal LightningDatabase MainDatabase => _db ?? throw new InvalidOperationException("not open");

    public void FillBatches(KeySet keys, int batchSize) => Batches(keys, batchSize, PutOptions.None);

    /// <summary>Puts with <c>MDB_APPEND</c> (<see cref="PutOptions.AppendData"/>): no search, full pages, a key out of order is MDB_KEYEXIST.</summary>
    public void AppendBatches(KeySet keys, int batchSize) => Batches(keys, batchSize, PutOptions.AppendData);

    private void Batches(KeySet keys, int batchSize, PutOptions options)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(batchSize, 1);
        var env = Env;
        var db = MainDatabase;
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        for (var start = 0; start < keys.Count; start += batchSize)
        {
            var end = Math.Min(start + batchSize, keys.Count);
            using var tx = env.BeginTransaction(TransactionBeginFlags.None);
            for (var i = start; i < end; i++)
            {
                var key = keys[i];
                BenchValues.Compose(key, value);
                tx.Put(db, key, value, options).ThrowOnError();
            }
            tx.Commit().ThrowOnError();
        }
    }

    public IBenchReader CreateReader() => new LmdbReader(Env, MainDatabase);

    public void Dispose()
    {
        // The database handle before the environment that owns it.
        _db?.Dispose();
        _db = null;
        _env?.Dispose();
        _env = null;
    }

    private LightningEnvironment Env => _env ?? throw new InvalidOperationException("not open");
}
