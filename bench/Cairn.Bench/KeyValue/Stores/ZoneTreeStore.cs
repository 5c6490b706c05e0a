using Cairn.Bench.Peers;
using Cairn.Bench.Peers.ZoneTree;
using ZoneTree;

namespace Cairn.Bench.KeyValue.Stores;

/// <summary>
/// ZoneTree as its documentation sets up a persistent tree (<see cref="ZoneTreePeer"/>), used without its
/// transactions: a batch is 1,000 <c>Upsert</c>s (each atomic on its own), nothing is synced, as LMDB runs
/// with MDB_NOSYNC here. Writes go to the WAL in the default AsyncCompressed mode; closing the tree
/// writes what is queued, so the reopen the read benchmarks do recovers every key (docs/benchmarks.md).
/// </summary>
public sealed class ZoneTreeStore : IBenchStore
{
    private ZoneTreeInstance? _zoneTree;

    public void Open(string directory, bool durable)
    {
        if (durable)
            throw new NotSupportedException("durable ZoneTree commits are in Durability/Stores/ZoneTreeDurableStore");
        if (_zoneTree is not null)
            throw new InvalidOperationException("already open");
        _zoneTree = ZoneTreePeer.Open(directory);
    }

    public void FillBatches(KeySet keys, int batchSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(batchSize, 1);
        var tree = Tree;
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        for (var i = 0; i < keys.Count; i++)
        {
            var key = Key16.From(keys[i]);
            BenchValues.Compose(keys[i], value);
            var stored = Value100.From(value);
            tree.Upsert(in key, in stored);
        }
    }

    public IBenchReader CreateReader() => new ZoneTreeReader(Tree);

    public void Dispose()
    {
        _zoneTree?.Dispose();
        _zoneTree = null;
    }

    private IZoneTree<Key16, Value100> Tree => (_zoneTree ?? throw new InvalidOperationException("not open")).Tree;
}

/// <summary>
/// Reads straight from the tree, which is thread-safe: the non-transactional API has no snapshot, so a
/// "transaction" is one <c>TryGet</c> and many reads see whatever is committed as they run (nothing is
/// written while the benchmarks read). The scan is an ordered iterator over every segment.
/// </summary>
internal sealed class ZoneTreeReader(IZoneTree<Key16, Value100> tree) : IBenchReader
{
    public int ReadInOwnTransaction(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        var k = Key16.From(key);
        if (!tree.TryGet(in k, out var value))
            return -1;
        ((ReadOnlySpan<byte>)value).CopyTo(destination);
        return Value100.Size;
    }

    public int ReadManyInOneTransaction(KeySet keys, int start, int count)
    {
        var found = 0;
        var index = start;
        for (var i = 0; i < count; i++)
        {
            var k = Key16.From(keys[index]);
            if (tree.ContainsKey(in k))
                found++;
            if (++index == keys.Count)
                index = 0;
        }
        return found;
    }

    public ScanTotals ScanAll()
    {
        long items = 0, keyBytes = 0, valueBytes = 0;
        using var iterator = tree.CreateIterator();
        while (iterator.Next())
        {
            items++;
            keyBytes += 16;
            valueBytes += Value100.Size;
        }
        return new ScanTotals(items, keyBytes, valueBytes);
    }

    public void Dispose()
    {
    }
}
