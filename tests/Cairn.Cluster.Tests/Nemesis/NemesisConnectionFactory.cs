using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>
/// How one DotNext Raft node dials the others under a nemesis (its
/// <c>RaftCluster.CustomTransportConfiguration</c>'s client connection factory). DotNext asks to connect to a
/// member by the address the member is known by (its identity, the same on every node); this dials the
/// network's proxy for (this node, that member) instead, so the proxy knows which node is sending.
/// </summary>
public sealed class NemesisConnectionFactory : IConnectionFactory
{
    private readonly int node;
    private readonly NemesisNetwork network;
    private readonly IReadOnlyList<EndPoint> members;
    private readonly SocketConnectionContextFactory contexts;

    /// <param name="node">This node's index in <paramref name="members"/>.</param>
    /// <param name="members">Every node's identity address, in the network's node order.</param>
    /// <param name="contexts">Wraps each connected socket as a connection (Kestrel's socket transport).</param>
    public NemesisConnectionFactory(int node, NemesisNetwork network, IReadOnlyList<EndPoint> members, SocketConnectionContextFactory contexts)
    {
        ArgumentNullException.ThrowIfNull(network);
        ArgumentNullException.ThrowIfNull(members);
        ArgumentNullException.ThrowIfNull(contexts);
        if (members.Count != network.NodeCount)
            throw new ArgumentException($"{members.Count} members for a network of {network.NodeCount} nodes.", nameof(members));
        ArgumentOutOfRangeException.ThrowIfNegative(node);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(node, members.Count);
        this.node = node;
        this.network = network;
        this.members = members;
        this.contexts = contexts;
    }

    public async ValueTask<ConnectionContext> ConnectAsync(EndPoint endpoint, CancellationToken cancellationToken = default)
    {
        var target = IndexOf(endpoint);
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(network.ProxyEndPoint(node, target), cancellationToken);
        }
        catch
        {
            socket.Dispose();
            throw;
        }

        return contexts.Create(socket);
    }

    private int IndexOf(EndPoint endpoint)
    {
        for (var i = 0; i < members.Count; i++)
        {
            if (members[i].Equals(endpoint))
                return i == node ? throw new ArgumentException($"Node {node} was asked to dial itself ({endpoint}).", nameof(endpoint)) : i;
        }

        throw new ArgumentException($"{endpoint} is not a member of this network ({string.Join(", ", members)}).", nameof(endpoint));
    }
}
