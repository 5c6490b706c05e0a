using Cairn.Bench.KeyValue;
using Cairn.Bench.Peers.RocksDb;
using RocksDbSharp;

namespace Cairn.Bench.Fill;

/// <summary>
/// RocksDB as <c>--fill-interleaved</c> fills it: RocksDB's default options (<see cref="RocksDbPeer.Open"/>), one
/// <see cref="WriteBatch"/> per batch written with the WAL on; durable batches with sync=true (the WAL synced before
/// the write returns), lazy ones with sync=false, RocksDB's default, the counterpart of Cairn's lazy commits and LMDB's
/// MDB_NOSYNC. Nothing is flushed at the end but what its close does: the fill's "with close+sync" figure adds a
/// global sync, which makes the WAL durable, as it does for the others.
/// </summary>
public sealed class RocksDbFillStore : IFillStore
{
    private RocksDbSharp.RocksDb? _db;
    private WriteOptions? _writeOptions;

    public void Open(string directory, bool durable)
    {
        if (_db is not null)
            throw new InvalidOperationException("already open");
        _writeOptions = durable ? RocksDbPeer.DurableWriteOptions() : new WriteOptions();
        _db = RocksDbPeer.Open(directory);
    }

    public void FillBatches(KeySet keys, int batchSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(batchSize, 1);
        var db = Db;
        var writeOptions = _writeOptions!;
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        using var batch = new WriteBatch();
        for (var start = 0; start < keys.Count; start += batchSize)
        {
            var end = Math.Min(start + batchSize, keys.Count);
            batch.Clear();
            for (var i = start; i < end; i++)
            {
                var key = keys[i];
                BenchValues.Compose(key, value);
                batch.Put(key, value);
            }
            db.Write(batch, writeOptions);
        }
    }

    public int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        if (Db.Get(key) is not { } value)
            return -1;
        value.CopyTo(destination);
        return value.Length;
    }

    public void Dispose()
    {
        _db?.Dispose();
        _db = null;
        _writeOptions = null;
    }

    private RocksDbSharp.RocksDb Db => _db ?? throw new InvalidOperationException("not open");
}
