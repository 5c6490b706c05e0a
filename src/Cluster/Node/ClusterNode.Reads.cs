using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Threading;

namespace Cairn.Cluster;

public sealed partial class ClusterNode
{
    /// <summary>
    /// A linearizable read of <paramref name="key"/> in <paramref name="tree"/> (null: absent), on the leader only
    /// (read index, docs/cluster.md): if no entry of the leader's term is applied yet, it replicates a no-op first (a
    /// new leader's commit index may lag entries of earlier terms); then DotNext's strong read barrier, which needs a
    /// replication round acknowledged by a majority after the call and waits until this node has applied every entry
    /// it holds; then, if the node still leads in the same term, a read of its environment.
    /// </summary>
    /// <exception cref="NotClusterLeaderException">This node does not lead, or stopped leading during the read; ask the leader.</exception>
    /// <exception cref="ClusterUnavailableException">No quorum is visible from this node.</exception>
    public async Task<byte[]?> ReadAsync(string tree, byte[] key, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(tree);
        ArgumentNullException.ThrowIfNull(key);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref disposed) != 0, this);
        ThrowIfFailed();
        // Followers do not serve these: DotNext's follower barrier takes the commit index the follower's leader knows,
        // without the leader confirming its leadership or its term's commit (the workload test saw a stale read).
        if (!IsLeader)
            throw new NotClusterLeaderException(LocalEndPoint, Leader);
        var term = raft.Term;
        try
        {
            if (stateMachine.AppliedTerm < term && Volatile.Read(ref readNoOpTerm) < term)
            {
                await raft.ReplicateAsync(ReadOnlyMemory<byte>.Empty, null, cancellationToken).ConfigureAwait(false);
                // DotNext applies an empty entry itself (the state machine never sees its term), so remember that an
                // entry of this term or later is committed: without this every read appended another no-op.
                RaiseReadNoOpTerm(term);
            }
            await raft.ApplyReadBarrierAsync(ReadBarrierType.Strong, cancellationToken).ConfigureAwait(false);
        }
        catch (QuorumUnreachableException e)
        {
            throw new ClusterUnavailableException(LocalEndPoint, "it sees no quorum", e);
        }
        catch (NotLeaderException)
        {
            throw new NotClusterLeaderException(LocalEndPoint, Leader);
        }
        catch (PendingTaskInterruptedException)
        {
            // DotNext ends the barrier's wait so when its applier stops: this node failed (fail-stop).
            ThrowIfFailed();
            throw new ClusterUnavailableException(LocalEndPoint, "the node is stopping");
        }

        if (!IsLeader || raft.Term != term)
            throw new NotClusterLeaderException(LocalEndPoint, Leader);
        return ReadLocal(tree, key);
    }

    /// <summary>
    /// A bounded-stale read on this node, leader or follower: waits until this node has applied at least
    /// <paramref name="minimumIndex"/> (e.g. the <see cref="ClusterWriteResult.LogIndex"/> of the caller's last write,
    /// which gives read-your-writes), then reads its environment. The value is at least as new as that index, and
    /// no newer than what this node has applied; no round trip to the leader.
    /// </summary>
    public async Task<byte[]?> ReadAppliedAsync(string tree, byte[] key, long minimumIndex, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(tree);
        ArgumentNullException.ThrowIfNull(key);
        ArgumentOutOfRangeException.ThrowIfNegative(minimumIndex);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref disposed) != 0, this);
        ThrowIfFailed();
        if (AppliedIndex < minimumIndex)
        {
            // A failed node never applies again: its failure ends the wait.
            try
            {
                await Task.WhenAny(log.WaitForApplyAsync(minimumIndex, cancellationToken).AsTask(), applier.Failure).Unwrap().ConfigureAwait(false);
            }
            catch (PendingTaskInterruptedException)
            {
                ThrowIfFailed();
                throw;
            }

            ThrowIfFailed();
        }

        return ReadLocal(tree, key);
    }

    private void RaiseReadNoOpTerm(long term)
    {
        for (var seen = Volatile.Read(ref readNoOpTerm); seen < term; seen = Volatile.Read(ref readNoOpTerm))
        {
            if (Interlocked.CompareExchange(ref readNoOpTerm, term, seen) == seen)
                return;
        }
    }

    private byte[]? ReadLocal(string tree, byte[] key)
    {
        using var read = environment.BeginRead();
        return read.TryOpenTree(tree, out var opened) ? opened.Get(key) : null;
    }
}
