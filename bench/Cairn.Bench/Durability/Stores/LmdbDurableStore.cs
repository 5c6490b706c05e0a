using Cairn.Bench.KeyValue.Stores;
using Cairn.Bench.Peers.Lmdb;

namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// LMDB in its default, durable mode: the key-value suite's <see cref="LmdbStore"/> opened with
/// <c>durable: true</c>, so no MDB_NOSYNC and no MDB_NOMETASYNC. Each commit then writes its dirty
/// pages with pwrite and fdatasyncs the data file, then writes the meta page through a second
/// descriptor opened with O_DSYNC: two synchronous waits per commit.
/// </summary>
public sealed class LmdbDurableStore : IDurableStore
{
    private readonly LmdbStore _store = new();
    private bool _open;

    public void Open(string directory)
    {
        _store.Open(directory, durable: true);
        _open = true;
        var flags = _store.OpenEnvironment.GetEffectiveFlags();
        if ((flags & (LmdbEnvironmentFlags.NoSync | LmdbEnvironmentFlags.NoMetaSync)) != 0)
            throw new InvalidOperationException($"LMDB was asked for durable commits but runs with {flags}");
    }

    // LMDB serialises write transactions itself (its writer mutex), so writers on several threads
    // each commit their own transaction, as the merger issue's comparison wants.
    public IDurableWriter CreateWriter() => new Writer(Environment, _store.MainDatabase);

    public string Describe() =>
        $"lmdb: {LmdbEnvironment.LibraryVersion}, flags {Environment.GetEffectiveFlags()} (no NoSync/NoMetaSync: durable), one write transaction per put";

    public int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        using var reader = _store.CreateReader();
        return reader.ReadInOwnTransaction(key, destination);
    }

    public void Dispose() => _store.Dispose();

    private LmdbEnvironment Environment => _open ? _store.OpenEnvironment : throw new InvalidOperationException("not open");

    private sealed class Writer(LmdbEnvironment env, uint dbi) : IDurableWriter
    {
        public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) => env.PutCommitted(dbi, key, value);

        public void Dispose()
        {
        }
    }
}
