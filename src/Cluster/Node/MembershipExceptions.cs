using System.Net;

namespace Cairn.Cluster;

/// <summary>
/// A node id (its address) was refused where it enters the cluster: it is a member already, or it was one and was
/// removed. An id is used once, so that a removed node coming back with its old log and state cannot vote again:
/// give a new node a new address.
/// </summary>
public sealed class MemberIdInUseException(EndPoint id, bool wasRemoved)
    : Exception(wasRemoved
        ? $"Node {id} was removed from the cluster; a removed id is never reused: give the new node a new address."
        : $"Node {id} is a member of the cluster already.")
{
    /// <summary>The refused id.</summary>
    public EndPoint Id { get; } = id;

    /// <summary>True: the id was removed earlier; false: it is a member now.</summary>
    public bool WasRemoved { get; } = wasRemoved;
}

/// <summary>A removal named an id that is not a member and never was one.</summary>
public sealed class UnknownClusterMemberException(EndPoint id)
    : Exception($"Node {id} is not a member of the cluster and never was.")
{
    /// <summary>The unknown id.</summary>
    public EndPoint Id { get; } = id;
}

/// <summary>
/// A membership change did not complete. <see cref="OutcomeKnown"/> says whether nothing changed (the new node did
/// not catch up within the warm-up rounds, or another change was under way) or whether the change may still commit
/// (the leader lost its leadership while the configuration entry was out): then read <see cref="ClusterNode.Members"/>
/// on the new leader before trying again.
/// </summary>
public sealed class MembershipChangeException(EndPoint id, string reason, bool outcomeKnown, Exception? inner = null)
    : Exception($"The membership change for node {id} did not complete: {reason}", inner)
{
    /// <summary>The node being added or removed.</summary>
    public EndPoint Id { get; } = id;

    /// <summary>True when nothing changed; false when the change may commit yet.</summary>
    public bool OutcomeKnown { get; } = outcomeKnown;
}
