using Cairn.Bench.Peers.RocksDb;
using RocksDbSharp;

namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// RocksDB with sync=true and the WAL on, through RocksDbSharp (NuGet package <c>RocksDB</c>, which
/// brings its own librocksdb): each put is one <c>rocksdb_put</c> that returns once its WAL record is
/// synced (fdatasync, <c>use_fsync=false</c>). Default options otherwise. Many threads may put at
/// once: RocksDB's write path makes the first waiting writer the leader of a write group, which
/// appends every member's record to the WAL and syncs once for all of them (group commit), the
/// strongest peer for concurrent durable commits.
/// </summary>
public sealed class RocksDbDurableStore : IDurableStore, IDurableLogCounter
{
    private RocksDbSharp.RocksDb? _db;
    private WriteOptions? _writeOptions;
    private string? _directory;

    public void Open(string directory)
    {
        if (_db is not null)
            throw new InvalidOperationException("already open");
        _writeOptions = RocksDbPeer.DurableWriteOptions();
        _db = RocksDbPeer.Open(directory);
        _directory = directory;
    }

    // The database handle is thread-safe and the write options are only read, so writers share both;
    // RocksDB batches concurrent writers itself.
    public IDurableWriter CreateWriter() => new Writer(Db, WriteOptions);

    public string Describe() =>
        $"rocksdb: {RocksDbPeer.Describe(_directory ?? throw new InvalidOperationException("not open"), WriteOptions)}; one put per write, concurrent writers grouped by RocksDB";

    public int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        if (Db.Get(key) is not { } value)
            return -1;
        value.CopyTo(destination);
        return value.Length;
    }

    public string LogWriteName => "WAL sync";

    public long LogWritesSinceLastRead() => RocksDbPeer.ReadWalInterval(Db).Syncs;

    public void Dispose()
    {
        _db?.Dispose();
        _db = null;
        _writeOptions = null;
        _directory = null;
    }

    private RocksDbSharp.RocksDb Db => _db ?? throw new InvalidOperationException("not open");

    private WriteOptions WriteOptions => _writeOptions ?? throw new InvalidOperationException("not open");

    private sealed class Writer(RocksDbSharp.RocksDb db, WriteOptions writeOptions) : IDurableWriter
    {
        public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) => db.Put(key, value, cf: null, writeOptions);

        public void Dispose()
        {
        }
    }
}
