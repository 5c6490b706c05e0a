using DotNext.Net.Cluster.Consensus.Raft;

namespace Cairn.Cluster;

public sealed partial class ClusterNode
{
    /// <summary>
    /// A linearizable read of <paramref name="key"/> in <paramref name="tree"/> (null: absent), on any member: DotNext's
    /// read barrier (read index: the leader confirms its leadership with a majority and names its commit index; this
    /// node waits until it has applied that far), then a read of this node's environment.
    /// </summary>
    /// <exception cref="ClusterUnavailableException">No quorum or no leader is visible from this node.</exception>
    public async Task<byte[]?> ReadAsync(string tree, byte[] key, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(tree);
        ArgumentNullException.ThrowIfNull(key);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref disposed) != 0, this);
        try
        {
            await raft.ApplyReadBarrierAsync(ReadBarrierType.Strong, cancellationToken).ConfigureAwait(false);
        }
        catch (QuorumUnreachableException e)
        {
            throw new ClusterUnavailableException(LocalEndPoint, "it sees no quorum", e);
        }
        catch (NotLeaderException e)
        {
            throw new ClusterUnavailableException(LocalEndPoint, "its leadership ended during the barrier", e);
        }

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
        if (AppliedIndex < minimumIndex)
            await log.WaitForApplyAsync(minimumIndex, cancellationToken).ConfigureAwait(false);
        return ReadLocal(tree, key);
    }

    private byte[]? ReadLocal(string tree, byte[] key)
    {
        using var read = environment.BeginRead();
        return read.TryOpenTree(tree, out var opened) ? opened.Get(key) : null;
    }
}
