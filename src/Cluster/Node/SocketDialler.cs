using System.Net;
using System.Net.Sockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn.Cluster.Node;

/// <summary>How a node dials the others when its caller supplies no dialler: a plain TCP connection to the member's address.</summary>
internal sealed class SocketDialler : IConnectionFactory, IDisposable
{
    private readonly SocketConnectionContextFactory contexts = new(new SocketConnectionFactoryOptions(), NullLogger.Instance);

    public async ValueTask<ConnectionContext> ConnectAsync(EndPoint endpoint, CancellationToken cancellationToken = default)
    {
        var socket = new Socket(endpoint.AddressFamily is AddressFamily.Unspecified ? AddressFamily.InterNetwork : endpoint.AddressFamily,
            SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(endpoint, cancellationToken).ConfigureAwait(false);
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
