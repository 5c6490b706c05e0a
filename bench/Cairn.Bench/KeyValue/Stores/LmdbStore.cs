using Cairn.Bench.Peers.Lmdb;

namespace Cairn.Bench.KeyValue.Stores;

/// <summary>
/// LMDB set up the way a performance-minded .NET user would: one main database, no fsync per
/// commit unless durable, no read-ahead, reader slots tied to transaction objects so each reader
/// keeps one read transaction and cycles it with reset/renew. docs/benchmarks.md explains each flag.
/// </summary>
public sealed class LmdbStore : IBenchStore
{
    /// <summary>Set to 1 to write through a writable map (MDB_WRITEMAP); off by default.</summary>
    public const string WriteMapVariable = "CAIRN_BENCH_LMDB_WRITEMAP";

    // Address space, not disk: without MDB_WRITEMAP the file grows only as pages are written.
    // 64 GiB is far above what a few million 116-byte items need, so the map never fills.
    private const long MapSize = 64L << 30;

    private LmdbEnvironment? _env;
    private uint _dbi;

    public static LmdbEnvironmentFlags FlagsFor(bool durable, bool writeMap)
    {
        var flags = LmdbEnvironmentFlags.NoReadAhead | LmdbEnvironmentFlags.NoTls;
        if (!durable)
            flags |= LmdbEnvironmentFlags.NoSync;
        if (writeMap)
            flags |= LmdbEnvironmentFlags.WriteMap;
        return flags;
    }

    public void Open(string directory, bool durable)
    {
        if (_env is not null)
            throw new InvalidOperationException("already open");
        var writeMap = Environment.GetEnvironmentVariable(WriteMapVariable) == "1";
        _env = LmdbEnvironment.Open(directory, new LmdbEnvironmentOptions
        {
            Flags = FlagsFor(durable, writeMap),
            MapSize = MapSize,
        });
        _dbi = _env.OpenMainDatabase();
    }

    /// <summary>The open environment, for the durable-commit peer, which drives the binding directly.</summary>
    internal LmdbEnvironment OpenEnvironment => Env;

    /// <summary>The main database's handle.</summary>
    internal uint MainDatabase => _dbi;

    public void FillBatches(KeySet keys, int batchSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(batchSize, 1);
        var env = Env;
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        for (var start = 0; start < keys.Count; start += batchSize)
        {
            var end = Math.Min(start + batchSize, keys.Count);
            using var txn = env.BeginWrite();
            for (var i = start; i < end; i++)
            {
                var key = keys[i];
                BenchValues.Compose(key, value);
                txn.Put(_dbi, key, value);
            }
            txn.Commit();
        }
    }

    public IBenchReader CreateReader() => new LmdbReader(Env, _dbi);

    public void Dispose()
    {
        _env?.Dispose();
        _env = null;
    }

    private LmdbEnvironment Env => _env ?? throw new InvalidOperationException("not open");
}
