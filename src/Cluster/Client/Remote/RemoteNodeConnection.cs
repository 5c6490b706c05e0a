using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;
using Cairn.Cluster.Client.Remote;
using Cairn.Cluster.Commands;
using static Cairn.Cluster.Client.Remote.RemoteProtocol;

namespace Cairn.Cluster;

/// <summary>
/// A <see cref="ClusterClient"/>'s connection to a node in another process, through its <see cref="ClusterNodeServer"/>.
/// One request at a time; a failed connection is dropped and the next request dials again. Refusals come back as the
/// same exceptions <see cref="ClusterNode"/> throws; a lost connection as <see cref="IOException"/> (for a write: of
/// unknown outcome, which the client retries with the same id).
/// </summary>
public sealed class RemoteNodeConnection : IClusterNodeConnection, IAsyncDisposable
{
    private readonly EndPoint server;
    private readonly SemaphoreSlim oneRequestAtATime = new(1, 1); // protects stream
    private NetworkStream? stream;

    /// <param name="node">The node's Raft address (its identity, matched against leader hints).</param>
    /// <param name="server">Where the node's <see cref="ClusterNodeServer"/> listens.</param>
    public RemoteNodeConnection(EndPoint node, EndPoint server)
    {
        LocalEndPoint = node ?? throw new ArgumentNullException(nameof(node));
        this.server = server ?? throw new ArgumentNullException(nameof(server));
    }

    /// <inheritdoc/>
    public EndPoint LocalEndPoint { get; }

    /// <inheritdoc/>
    public async Task<ClusterWriteResult> WriteAsync(ClusterCommand command, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(command);
        var (kind, body) = await CallAsync(Request.Write, CommandCodec.Encode(command), cancellationToken).ConfigureAwait(false);
        return kind switch
        {
            Reply.Written when body.Length == 9 => new ClusterWriteResult(BinaryPrimitives.ReadInt64LittleEndian(body), body[8] == 1),
            Reply.OutcomeUnknown => throw new WriteOutcomeUnknownException(command.Id, Text(body)),
            Reply.SessionExpired => throw new SessionExpiredException(command.Id),
            _ => throw Refusal(kind, body),
        };
    }

    /// <inheritdoc/>
    public Task<byte[]?> ReadAsync(string tree, byte[] key, CancellationToken cancellationToken = default)
        => ReadCoreAsync(Request.Read, tree, key, null, cancellationToken);

    /// <inheritdoc/>
    public Task<byte[]?> ReadAppliedAsync(string tree, byte[] key, long minimumIndex, CancellationToken cancellationToken = default)
        => ReadCoreAsync(Request.ReadApplied, tree, key, minimumIndex, cancellationToken);

    /// <summary>
    /// The node's own view of the cluster (<see cref="ClusterNode.GetStatus"/>), asked over the connection: reads
    /// nothing but the node's state, changes nothing.
    /// </summary>
    /// <exception cref="IOException">The node could not be reached, gives no status, or its reply did not decode.</exception>
    public async Task<ClusterNodeStatus> GetStatusAsync(CancellationToken cancellationToken = default)
    {
        var (kind, body) = await CallAsync(Request.Status, StatusCodec.EncodeRequest(), cancellationToken).ConfigureAwait(false);
        if (kind == Reply.Unavailable)
            throw new IOException($"Node {LocalEndPoint} at {server} gives no status: {Text(body)}.");
        if (kind != Reply.Status)
            throw Refusal(kind, body);
        try
        {
            return StatusCodec.DecodeReply(body);
        }
        catch (InvalidDataException e)
        {
            throw new IOException($"Node {LocalEndPoint} at {server} sent a status reply that does not decode: {e.Message}", e);
        }
    }

    /// <summary>Closes the connection.</summary>
    public async ValueTask DisposeAsync()
    {
        await oneRequestAtATime.WaitAsync().ConfigureAwait(false);
        try
        {
            if (stream is not null)
                await stream.DisposeAsync().ConfigureAwait(false);
            stream = null;
        }
        finally
        {
            oneRequestAtATime.Release();
        }
    }

    private async Task<byte[]?> ReadCoreAsync(Request request, string tree, byte[] key, long? minimumIndex, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(tree);
        ArgumentNullException.ThrowIfNull(key);
        var (kind, body) = await CallAsync(request, EncodeRead(tree, key, minimumIndex), cancellationToken).ConfigureAwait(false);
        return kind switch
        {
            Reply.Value => body.Length == 0 ? null : body[1..],
            _ => throw Refusal(kind, body),
        };
    }

    private Exception Refusal(Reply kind, byte[] body) => kind switch
    {
        Reply.NotLeader => new NotClusterLeaderException(LocalEndPoint, ParseLeader(body)),
        Reply.Unavailable => new ClusterUnavailableException(LocalEndPoint, Text(body)),
        Reply.BadRequest => new ArgumentException($"Node {LocalEndPoint} refused the request: {Text(body)}"),
        _ => new IOException($"Node {LocalEndPoint} answered with reply kind {(byte)kind}, which does not fit the request."),
    };

    private async Task<(Reply Kind, byte[] Body)> CallAsync(Request request, byte[] body, CancellationToken cancellationToken)
    {
        await oneRequestAtATime.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            var connected = stream ??= await ConnectAsync(cancellationToken).ConfigureAwait(false);
            // A cancelled call leaves the connection mid-exchange: drop it so the next call starts clean.
            await using var drop = cancellationToken.Register(() => connected.Dispose());
            await WriteFrameAsync(connected, (byte)request, body, cancellationToken).ConfigureAwait(false);
            var reply = await ReadFrameAsync(connected, cancellationToken).ConfigureAwait(false)
                ?? throw new IOException($"Node {LocalEndPoint} closed the connection before answering.");
            return ((Reply)reply.Kind, reply.Body);
        }
        catch (Exception e) when (e is IOException or SocketException or ObjectDisposedException or InvalidDataException or OperationCanceledException)
        {
            if (stream is not null)
                await stream.DisposeAsync().ConfigureAwait(false);
            stream = null;
            cancellationToken.ThrowIfCancellationRequested();
            throw e as IOException ?? new IOException($"The connection to node {LocalEndPoint} at {server} failed: {e.Message}", e);
        }
        finally
        {
            oneRequestAtATime.Release();
        }
    }

    private async Task<NetworkStream> ConnectAsync(CancellationToken cancellationToken)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(server, cancellationToken).ConfigureAwait(false);
            return new NetworkStream(socket, ownsSocket: true);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }
}
