using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;
using Cairn.Cluster.Client.Remote;
using Cairn.Cluster.Commands;
using static Cairn.Cluster.Client.Remote.RemoteProtocol;

namespace Cairn.Cluster;

/// <summary>
/// Serves a node's writes and reads to clients in other processes (<see cref="RemoteNodeConnection"/>) over TCP, one
/// request at a time per connection. A malformed request gets a refusal and the connection is closed; it never
/// reaches the node.
/// </summary>
public sealed class ClusterNodeServer : IAsyncDisposable
{
    private readonly IClusterNodeConnection node;
    private readonly Socket listener;
    private readonly CancellationTokenSource stopping = new();
    private readonly Task accepting;
    private readonly Lock gate = new(); // protects connections
    private readonly HashSet<Task> connections = [];

    private ClusterNodeServer(IClusterNodeConnection node, Socket listener)
    {
        this.node = node;
        this.listener = listener;
        EndPoint = (IPEndPoint)listener.LocalEndPoint!;
        accepting = AcceptAsync();
    }

    /// <summary>Where the server listens.</summary>
    public IPEndPoint EndPoint { get; }

    /// <summary>Listens on <paramref name="endPoint"/> (port 0: one the OS chooses) for <paramref name="node"/>'s clients.</summary>
    public static ClusterNodeServer Start(IClusterNodeConnection node, IPEndPoint endPoint)
    {
        ArgumentNullException.ThrowIfNull(node);
        ArgumentNullException.ThrowIfNull(endPoint);
        var listener = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            listener.Bind(endPoint);
            listener.Listen();
        }
        catch
        {
            listener.Dispose();
            throw;
        }

        return new ClusterNodeServer(node, listener);
    }

    /// <summary>Stops accepting, closes every connection and waits for their requests to end.</summary>
    public async ValueTask DisposeAsync()
    {
        if (stopping.IsCancellationRequested)
            return;
        await stopping.CancelAsync().ConfigureAwait(false);
        listener.Dispose();
        await accepting.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        Task[] open;
        lock (gate)
            open = connections.ToArray();
        await Task.WhenAll(open).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        stopping.Dispose();
    }

    private async Task AcceptAsync()
    {
        while (!stopping.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await listener.AcceptAsync(stopping.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                return;
            }

            socket.NoDelay = true;
            var serving = ServeAsync(socket);
            lock (gate)
                connections.Add(serving);
            _ = serving.ContinueWith(done => { lock (gate) connections.Remove(done); }, TaskScheduler.Default);
        }
    }

    private async Task ServeAsync(Socket socket)
    {
        await Task.Yield();
        await using var stream = new NetworkStream(socket, ownsSocket: true);
        try
        {
            while (await ReadFrameAsync(stream, stopping.Token).ConfigureAwait(false) is { } request)
            {
                var (kind, body) = await AnswerAsync(request.Kind, request.Body).ConfigureAwait(false);
                await WriteFrameAsync(stream, (byte)kind, body, stopping.Token).ConfigureAwait(false);
                if (kind == Reply.BadRequest)
                    return;
            }
        }
        catch (Exception e) when (e is IOException or SocketException or OperationCanceledException or ObjectDisposedException or InvalidDataException)
        {
            // The client went away, the server is stopping, or the peer sent a frame no client sends: close.
        }
    }

    private async Task<(Reply Kind, byte[] Body)> AnswerAsync(byte kind, byte[] body)
    {
        ClusterCommand? command = null;
        try
        {
            switch ((Request)kind)
            {
                case Request.Write:
                    command = CommandCodec.Decode(body, 0);
                    var written = await node.WriteAsync(command, stopping.Token).ConfigureAwait(false);
                    var reply = new byte[9];
                    BinaryPrimitives.WriteInt64LittleEndian(reply, written.LogIndex);
                    reply[8] = written.WasRetry ? (byte)1 : (byte)0;
                    return (Reply.Written, reply);
                case Request.Read or Request.ReadApplied:
                    var (tree, key, minimum) = DecodeRead(body, (Request)kind == Request.ReadApplied);
                    var value = minimum is { } index
                        ? await node.ReadAppliedAsync(tree, key, index, stopping.Token).ConfigureAwait(false)
                        : await node.ReadAsync(tree, key, stopping.Token).ConfigureAwait(false);
                    return (Reply.Value, value is null ? [] : [1, .. value]);
                case Request.Status:
                    if (StatusCodec.CheckRequest(body) is { } refusal)
                        return (Reply.BadRequest, Text(refusal));
                    if (node is not IClusterNodeStatusSource source)
                        return (Reply.Unavailable, Text($"node {node.LocalEndPoint} is not in this server's process and reports no status"));
                    return (Reply.Status, StatusCodec.EncodeReply(await source.GetStatusAsync(stopping.Token).ConfigureAwait(false)));
                default:
                    return (Reply.BadRequest, Text($"unknown request kind {kind}"));
            }
        }
        catch (NotClusterLeaderException e)
        {
            return (Reply.NotLeader, Text(e.Leader?.ToString()));
        }
        catch (WriteOutcomeUnknownException e)
        {
            return (Reply.OutcomeUnknown, Text(e.Message));
        }
        catch (SessionExpiredException)
        {
            return (Reply.SessionExpired, []);
        }
        catch (ClusterUnavailableException e)
        {
            return (Reply.Unavailable, Text(e.Message));
        }
        catch (ClusterNodeFailedException e)
        {
            // Refused before anything was appended: a write goes to another node (no leader known here), a read too.
            return command is null ? (Reply.Unavailable, Text(e.Message)) : (Reply.NotLeader, Text((string?)null));
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            // A write the server stopped waiting for may still be applied.
            return command is null ? (Reply.Unavailable, Text("the server is stopping")) : (Reply.OutcomeUnknown, Text("the server is stopping"));
        }
        catch (ObjectDisposedException)
        {
            return command is null ? (Reply.Unavailable, Text("the node is stopped")) : (Reply.OutcomeUnknown, Text("the node stopped"));
        }
        catch (Exception e) when (e is CorruptCommandException or InvalidDataException or ArgumentException)
        {
            return (Reply.BadRequest, Text(e.Message));
        }
    }
}
