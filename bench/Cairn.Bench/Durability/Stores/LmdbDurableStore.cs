using Cairn.Bench.KeyValue.Stores;
using Cairn.Bench.Peers.Lmdb;
using LightningDB;

namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// LMDB in its default, durable mode: the key-value suite's <see cref="LmdbStore"/> opened with
/// <c>durable: true</c>, so no MDB_NOSYNC and no MDB_NOMETASYNC. Each commit then writes its dirty
/// pages with pwrite and fdatasyncs the data file, then writes the meta page through a second
/// descriptor opened with O_DSYNC: two synchronous waits per commit. LMDB's documentation: a commit
/// is durable unless one of those flags (or MDB_MAPASYNC with MDB_WRITEMAP) is set.
/// </summary>
public sealed class LmdbDurableStore : IDurableStore
{
    private readonly LmdbStore _store = new();
    private bool _open;

    public void Open(string directory)
    {
        _store.Open(directory, durable: true);
        _open = true;
        var flags = _store.OpenEnvironment.Flags;
        if ((flags & (EnvironmentOpenFlags.NoSync | EnvironmentOpenFlags.NoMetaSync | EnvironmentOpenFlags.MapAsync)) != 0)
            throw new InvalidOperationException($"LMDB was asked for durable commits but runs with {flags}");
    }

    // LMDB serialises write transactions itself (its writer mutex), so writers on several threads
    // each commit their own transaction.
    public IDurableWriter CreateWriter() => new Writer(Environment, _store.MainDatabase);

    public string Describe() =>
        $"lmdb: {LmdbPeer.Describe(Environment)} (no NoSync/NoMetaSync: durable), one write transaction per put";

    public int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        using var reader = _store.CreateReader();
        return reader.ReadInOwnTransaction(key, destination);
    }

    public void Dispose() => _store.Dispose();

    private LightningEnvironment Environment => _open ? _store.OpenEnvironment : throw new InvalidOperationException("not open");

    /// <summary>
    /// BeginTransaction, Put, Commit: LightningDB allocates one <see cref="LightningTransaction"/> per commit
    /// (the home-made binding it replaced allocated nothing); the memory diagnoser shows it.
    /// </summary>
    private sealed class Writer(LightningEnvironment env, LightningDatabase db) : IDurableWriter
    {
        public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            using var tx = env.BeginTransaction(TransactionBeginFlags.None);
            tx.Put(db, key, value, PutOptions.None).ThrowOnError();
            tx.Commit().ThrowOnError();
        }

        public void Dispose()
        {
        }
    }
}
