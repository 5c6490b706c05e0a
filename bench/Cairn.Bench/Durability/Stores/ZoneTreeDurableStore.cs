using Cairn.Bench.Peers;
using Cairn.Bench.Peers.ZoneTree;
using ZoneTree;

namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// ZoneTree with a durable commit per put, as its README prescribes for a write that must survive a
/// power loss before it is acknowledged: <c>Upsert</c>, then <c>SyncWALAsync()</c>, waited for. The WAL
/// mode is the documented default, AsyncCompressed (<see cref="ZoneTreePeer"/>); concurrent callers share
/// the WAL syncs. The tree is thread-safe, so writers share it.
/// </summary>
public sealed class ZoneTreeDurableStore : IDurableStore
{
    private ZoneTreeInstance? _zoneTree;

    public void Open(string directory)
    {
        if (_zoneTree is not null)
            throw new InvalidOperationException("already open");
        _zoneTree = ZoneTreePeer.Open(directory);
    }

    public IDurableWriter CreateWriter() => new Writer(Tree);

    public string Describe() => "zonetree: " + (_zoneTree ?? throw new InvalidOperationException("not open")).Describe() +
        "; one Upsert per put, then SyncWALAsync() waited for";

    public int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        var k = Key16.From(key);
        if (!Tree.TryGet(in k, out var value))
            return -1;
        ((ReadOnlySpan<byte>)value).CopyTo(destination);
        return Value100.Size;
    }

    public void Dispose()
    {
        _zoneTree?.Dispose();
        _zoneTree = null;
    }

    private IZoneTree<Key16, Value100> Tree => (_zoneTree ?? throw new InvalidOperationException("not open")).Tree;

    private sealed class Writer(IZoneTree<Key16, Value100> tree) : IDurableWriter
    {
        public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            var k = Key16.From(key);
            var v = Value100.From(value);
            tree.Upsert(in k, in v);
            tree.SyncWALAsync(CancellationToken.None).GetAwaiter().GetResult();
        }

        public void Dispose()
        {
        }
    }
}
