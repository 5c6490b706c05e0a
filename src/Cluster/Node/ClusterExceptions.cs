using System.Net;

namespace Cairn.Cluster;

/// <summary>A write went to a node that does not lead; <see cref="Leader"/> is the one it follows, if it knows one.</summary>
/// <remarks>
/// A leader whose leadership just ended still names itself until DotNext has left the leader state; the refusal then
/// names no leader, never the refusing node itself (a client would ask it again).
/// </remarks>
public sealed class NotClusterLeaderException(EndPoint node, EndPoint? leader)
    : Exception($"Node {node} is not the leader; {(OtherThan(node, leader) is { } other ? $"it follows {other}" : "it knows no leader now")}.")
{
    /// <summary>The node that refused.</summary>
    public EndPoint Node { get; } = node;

    /// <summary>The leader the node follows, or null (never <see cref="Node"/>).</summary>
    public EndPoint? Leader { get; } = OtherThan(node, leader);

    private static EndPoint? OtherThan(EndPoint node, EndPoint? leader) => leader is null || leader.Equals(node) ? null : leader;
}

/// <summary>
/// A write was handed to Raft but the node cannot say whether the cluster committed it (its leadership ended, or the
/// wait was cancelled): it may be applied now or later, or never. Retrying with the same <see cref="OperationId"/> is
/// safe: it is applied at most once.
/// </summary>
public sealed class WriteOutcomeUnknownException(OperationId id, string reason, Exception? inner = null)
    : Exception($"Write {id} may or may not have been committed: {reason}", inner)
{
    /// <summary>The write's id, to retry with.</summary>
    public OperationId Id { get; } = id;
}

/// <summary>
/// The cluster refused a write because it holds no session for its client and the write is not the session's first
/// (the session was evicted from the bounded dedup table, or the client never started one). Nothing was applied by
/// this attempt; the client starts a new session (a new client id) and must treat this write's earlier attempts as
/// of unknown outcome.
/// </summary>
public sealed class SessionExpiredException(OperationId id)
    : Exception($"The cluster holds no session for client {id.Client} and write {id.Sequence} is not its first; start a new session.")
{
    /// <summary>The refused write's id.</summary>
    public OperationId Id { get; } = id;
}

/// <summary>A linearizable read could not be served: the node sees no quorum (partitioned, or no leader yet).</summary>
public sealed class ClusterUnavailableException(EndPoint node, string reason, Exception? inner = null)
    : Exception($"Node {node} cannot serve a linearizable read: {reason}", inner)
{
    /// <summary>The node that could not serve it.</summary>
    public EndPoint Node { get; } = node;
}

/// <summary>
/// The node stopped itself because its state machine failed (<see cref="Cause"/>: e.g. its environment latched on a
/// full disk, a snapshot install that could not finish): it no longer votes, leads, takes entries or serves. Nothing
/// it acknowledged is lost (the other nodes hold it); restart it once the cause is cleared and it replays its Raft log.
/// </summary>
public sealed class ClusterNodeFailedException(EndPoint node, Exception cause)
    : Exception($"Node {node} stopped itself after its state machine failed ({cause.GetType().Name}: {cause.Message}); restart it once the cause is cleared.", cause)
{
    /// <summary>
    /// The exit code of a process that ends because its node failed (EX_SOFTWARE): a host built with AddCairnCluster
    /// stops with it, so a supervisor (systemd Restart=on-failure, Kubernetes) starts it again.
    /// </summary>
    public const int ProcessExitCode = 70;

    /// <summary>The node that stopped.</summary>
    public EndPoint Node { get; } = node;

    /// <summary>Why its state machine failed.</summary>
    public Exception Cause { get; } = cause;
}
