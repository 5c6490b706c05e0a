using Cairn.Bench.Peers.Faster;
using Cairn.Bench.Peers;
using FASTER.core;

namespace Cairn.Bench.KeyValue.Stores;

/// <summary>
/// A FASTER session of its own (sessions are single-threaded). A "transaction" is one read: FASTER has
/// no snapshots to begin or end. Every record stays in memory (<see cref="FasterPeer"/> sizes the log for
/// it), so reads complete at once; one that goes pending (on disk) is completed before returning.
/// </summary>
internal sealed class FasterReader(FasterKV<Key16, Value100> store) : IBenchReader
{
    private readonly ClientSession<Key16, Value100, Value100, Value100, Empty, SimpleFunctions<Key16, Value100>> _session =
        FasterPeer.NewSession(store);

    public int ReadInOwnTransaction(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        if (!TryRead(key, out var value))
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
            if (TryRead(keys[index], out _))
                found++;
            if (++index == keys.Count)
                index = 0;
        }
        return found;
    }

    /// <summary>Walks the log from its beginning to its tail (FASTER has no key order), skipping deleted records.</summary>
    public ScanTotals ScanAll()
    {
        long items = 0, keyBytes = 0, valueBytes = 0;
        using var iterator = store.Log.Scan(store.Log.BeginAddress, store.Log.TailAddress);
        while (iterator.GetNext(out var recordInfo))
        {
            if (recordInfo.Tombstone)
                continue;
            items++;
            keyBytes += 16;
            valueBytes += Value100.Size;
        }
        return new ScanTotals(items, keyBytes, valueBytes);
    }

    public void Dispose() => _session.Dispose();

    private bool TryRead(ReadOnlySpan<byte> key, out Value100 value)
    {
        var k = Key16.From(key);
        value = default;
        var status = _session.Read(ref k, ref value);
        if (status.IsPending)
        {
            _session.CompletePendingWithOutputs(out var outputs, wait: true);
            using (outputs)
            {
                if (!outputs.Next())
                    throw new InvalidOperationException("a pending FASTER read completed without output");
                status = outputs.Current.Status;
                value = outputs.Current.Output;
            }
        }
        return status.Found;
    }
}
