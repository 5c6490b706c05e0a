using Cairn.Bench.Peers.Faster;
using Cairn.Bench.Peers;
using FASTER.core;

namespace Cairn.Bench.KeyValue.Stores;

/// <summary>
/// FASTER KV as its documentation sets up a recoverable store (<see cref="FasterPeer"/>). FASTER has no
/// transactions: a batch is 1,000 upserts on the writer's session, and what makes writes survive a
/// restart is a checkpoint, not a commit. The fill ends with one FoldOver hybrid-log checkpoint (timed:
/// the fill is not done before it can be recovered), so the suite's non-durable batches (LMDB with
/// MDB_NOSYNC) stand against batches with no per-batch cost at all. FASTER is a hash index: the scan
/// walks the log, not key order (docs/benchmarks.md).
/// </summary>
public sealed class FasterStore : IBenchStore
{
    private FasterInstance? _faster;

    public void Open(string directory, bool durable)
    {
        if (durable)
            throw new NotSupportedException("durable FASTER commits are in Durability/Stores/FasterDurableStore");
        if (_faster is not null)
            throw new InvalidOperationException("already open");
        _faster = FasterPeer.Open(directory);
    }

    public void FillBatches(KeySet keys, int batchSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(batchSize, 1);
        var store = Store;
        using (var session = FasterPeer.NewSession(store))
        {
            Span<byte> value = stackalloc byte[BenchValues.ValueSize];
            for (var start = 0; start < keys.Count; start += batchSize)
            {
                var end = Math.Min(start + batchSize, keys.Count);
                for (var i = start; i < end; i++)
                {
                    var key = Key16.From(keys[i]);
                    BenchValues.Compose(keys[i], value);
                    var stored = Value100.From(value);
                    var status = session.Upsert(ref key, ref stored);
                    if (status.IsPending)
                        session.CompletePending(wait: true);
                }
            }
        }
        FasterPeer.Checkpoint(store);
    }

    public IBenchReader CreateReader() => new FasterReader(Store);

    public void Dispose()
    {
        _faster?.Dispose();
        _faster = null;
    }

    private FasterKV<Key16, Value100> Store => (_faster ?? throw new InvalidOperationException("not open")).Store;
}
