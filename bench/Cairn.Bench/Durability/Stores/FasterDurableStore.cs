using Cairn.Bench.Peers.Faster;
using Cairn.Bench.Peers;
using FASTER.core;

namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// FASTER KV with a durable commit per put, as its documentation makes writes durable: the upsert
/// completes in memory, then a FoldOver hybrid-log checkpoint (<c>TakeHybridLogCheckpointAsync</c>,
/// log-only, the kind it recommends taking frequently) that began after it flushes the log to the local
/// device and writes the checkpoint's metadata; the put returns when that checkpoint completes.
/// Concurrent callers share checkpoints (group commit): a caller whose upsert is covered by a checkpoint
/// that another caller started later returns without taking its own. No index checkpoints: recovery
/// replays the log to rebuild the index, which the docs allow (index checkpoints only now and then).
/// </summary>
public sealed class FasterDurableStore : IDurableStore, IDurableLogCounter
{
    private readonly Lock _checkpointGate = new();
    private FasterInstance? _faster;
    private long _checkpointsStarted;
    private long _checkpointsCompleted;
    private long _checkpointsReported;

    public void Open(string directory)
    {
        if (_faster is not null)
            throw new InvalidOperationException("already open");
        _faster = FasterPeer.Open(directory);
    }

    public IDurableWriter CreateWriter() => new Writer(this, FasterPeer.NewSession(Store));

    public string Describe() => "faster: " + (_faster ?? throw new InvalidOperationException("not open")).Describe() +
        "; one upsert per put, then a FoldOver checkpoint begun after it (shared by concurrent callers)";

    public int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        using var session = FasterPeer.NewSession(Store);
        var k = Key16.From(key);
        Value100 value = default;
        var status = session.Read(ref k, ref value);
        if (status.IsPending)
        {
            session.CompletePendingWithOutputs(out var outputs, wait: true);
            using (outputs)
            {
                outputs.Next();
                status = outputs.Current.Status;
                value = outputs.Current.Output;
            }
        }
        if (!status.Found)
            return -1;
        ((ReadOnlySpan<byte>)value).CopyTo(destination);
        return Value100.Size;
    }

    public string LogWriteName => "FoldOver checkpoint";

    public long LogWritesSinceLastRead()
    {
        var completed = Interlocked.Read(ref _checkpointsCompleted);
        var since = completed - _checkpointsReported;
        _checkpointsReported = completed;
        return since;
    }

    public void Dispose()
    {
        _faster?.Dispose();
        _faster = null;
    }

    private FasterKV<Key16, Value100> Store => (_faster ?? throw new InvalidOperationException("not open")).Store;

    /// <summary>Makes every upsert that completed before the call durable.</summary>
    private void CommitUpserts()
    {
        // A checkpoint numbered above this one began after our upsert completed, so it covers it.
        var startedBefore = Volatile.Read(ref _checkpointsStarted);
        lock (_checkpointGate)
        {
            if (_checkpointsCompleted > startedBefore)
                return;
            var number = ++_checkpointsStarted;
            FasterPeer.Checkpoint(Store);
            Volatile.Write(ref _checkpointsCompleted, number);
        }
    }

    private sealed class Writer(FasterDurableStore owner, ClientSession<Key16, Value100, Value100, Value100, Empty, SimpleFunctions<Key16, Value100>> session) : IDurableWriter
    {
        public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            var k = Key16.From(key);
            var v = Value100.From(value);
            var status = session.Upsert(ref k, ref v);
            if (status.IsPending)
                session.CompletePending(wait: true);
            owner.CommitUpserts();
        }

        public void Dispose() => session.Dispose();
    }
}
