using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn.Cluster.NodeHost;

/// <summary>
/// Dials another member through the test's proxy for (this node, that member), so the nemesis knows the sender of
/// every byte; the member is asked for by its Raft address, its identity on every node.
/// </summary>
internal sealed class ProxyDialler(NodeHostArguments arguments) : IConnectionFactory, IDisposable
{
    private readonly SocketConnectionContextFactory contexts = new(new SocketConnectionFactoryOptions(), NullLogger.Instance);

    public async ValueTask<ConnectionContext> ConnectAsync(EndPoint endpoint, CancellationToken cancellationToken = default)
    {
        var member = arguments.Members.ToList().FindIndex(m => m.Equals(endpoint));
        if (member < 0 || arguments.DialThrough[member] is not { } proxy)
            throw new ArgumentException($"Node {arguments.Node} has no proxy to {endpoint}.", nameof(endpoint));
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(proxy, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            socket.Dispose();
            throw;
        }

        return contexts.Create(socket);
    }

    public void Dispose() => contexts.Dispose();
}
