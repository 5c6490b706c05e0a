using System.Net;

namespace Cairn.Cluster;

/// <summary>
/// What one node says about itself and, if it leads, about the members it replicates to
/// (<see cref="ClusterNode.GetStatus"/>, or <see cref="RemoteNodeConnection.GetStatusAsync"/> from another process).
/// A snapshot: the node may learn otherwise at any moment.
/// </summary>
/// <param name="Node">The node's Raft address (its identity).</param>
/// <param name="Leader">The leader it follows (itself, if it leads), or null while it knows none.</param>
/// <param name="Term">Its current Raft term.</param>
/// <param name="LastLogIndex">The last index in its Raft log, committed or not.</param>
/// <param name="CommitIndex">The last index it knows committed.</param>
/// <param name="AppliedIndex">The last index whose effects its environment holds.</param>
/// <param name="Members">Every member it knows, itself included.</param>
public sealed record ClusterNodeStatus(
    EndPoint Node, EndPoint? Leader, long Term, long LastLogIndex, long CommitIndex, long AppliedIndex, IReadOnlyList<ClusterMemberView> Members)
{
    /// <summary>Whether the node said it leads.</summary>
    public bool IsLeader => Leader is not null && Leader.Equals(Node);

    /// <summary>Committed entries the node has not applied yet.</summary>
    public long ApplyLag => CommitIndex - AppliedIndex;
}

/// <summary>One member as a node sees it.</summary>
/// <param name="EndPoint">The member's Raft address.</param>
/// <param name="Reachable">
/// On a leader's status, for another member: whether its last exchange with the member succeeded (null: none yet).
/// Null from a node that does not lead, and for the leader itself. DotNext keeps how far each member's log reaches
/// to itself, so the lag of a member is its own status's (<see cref="ClusterNodeStatus.AppliedIndex"/> against the
/// leader's <see cref="ClusterNodeStatus.CommitIndex"/>).
/// </param>
public sealed record ClusterMemberView(EndPoint EndPoint, bool? Reachable);
