namespace Cairn.Cluster;

public sealed partial class ClusterNode : IClusterNodeStatusSource
{
    /// <summary>
    /// This node's view of the cluster now: its leader, term, log, commit and applied indexes, and the members; on a
    /// leader, also whether it reaches each. Reads local state only.
    /// </summary>
    public ClusterNodeStatus GetStatus()
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref disposed) != 0, this);
        var leads = IsLeader;
        var members = raft.Members.Select(member => new ClusterMemberView(member.EndPoint, leads && member.IsRemote ? member.Status switch
        {
            DotNext.Net.Cluster.ClusterMemberStatus.Available => true,
            DotNext.Net.Cluster.ClusterMemberStatus.Unavailable => false,
            _ => null,
        } : null)).ToArray();
        // Applied before commit before last: each is read after the one it may not exceed, so a status never shows a
        // node that applied more than it knew committed.
        var applied = AppliedIndex;
        var commit = CommitIndex;
        return new ClusterNodeStatus(LocalEndPoint, Leader, Term, log.LastEntryIndex, commit, applied, members);
    }

    Task<ClusterNodeStatus> IClusterNodeStatusSource.GetStatusAsync(CancellationToken cancellationToken) => Task.FromResult(GetStatus());
}

/// <summary>What a <see cref="ClusterNodeServer"/> asks for a status request: a node in this process.</summary>
internal interface IClusterNodeStatusSource
{
    Task<ClusterNodeStatus> GetStatusAsync(CancellationToken cancellationToken);
}
