using System.Net;

namespace Cairn.Cluster;

/// <summary>
/// How a <see cref="ClusterClient"/> reaches one node. <see cref="ClusterNode"/> is one (in the same process); a
/// connection to a node in another process implements the same calls over its transport.
/// </summary>
public interface IClusterNodeConnection
{
    /// <summary>The node's address (its identity in the cluster), matched against leader hints.</summary>
    EndPoint LocalEndPoint { get; }

    /// <inheritdoc cref="ClusterNode.WriteAsync"/>
    Task<ClusterWriteResult> WriteAsync(ClusterCommand command, CancellationToken cancellationToken = default);

    /// <inheritdoc cref="ClusterNode.ReadAsync"/>
    Task<byte[]?> ReadAsync(string tree, byte[] key, CancellationToken cancellationToken = default);

    /// <inheritdoc cref="ClusterNode.ReadAppliedAsync"/>
    Task<byte[]?> ReadAppliedAsync(string tree, byte[] key, long minimumIndex, CancellationToken cancellationToken = default);
}
