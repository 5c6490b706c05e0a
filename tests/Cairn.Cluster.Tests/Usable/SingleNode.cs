using System.Net;
using Cairn.Cluster.Tests.Nemesis;
using Cairn.Tests.Support;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Cairn.Cluster.Tests.Usable;

/// <summary>
/// A one-member cluster on a scratch folder: it elects itself, so status, metrics and hosting can be tested without
/// the cost and the waits of three nodes. Its Raft listener is bound before the node starts (the OS picks the port).
/// </summary>
internal static class SingleNode
{
    public static async Task<PreboundListenerFactory> BindAsync()
    {
        var transport = new SocketTransportFactory(Microsoft.Extensions.Options.Options.Create(new SocketTransportOptions()), NullLoggerFactory.Instance);
        return new PreboundListenerFactory(await transport.BindAsync(new IPEndPoint(IPAddress.Loopback, 0)));
    }

    public static ClusterNodeOptions Options(TestDirectory directory, PreboundListenerFactory listener, StorageOptions? storage = null) => new()
    {
        DirectoryPath = directory.File("node"),
        LocalEndPoint = listener.EndPoint,
        Members = [listener.EndPoint],
        Listener = listener,
        Storage = storage,
    };

    public static async Task<ClusterNode> StartAsync(TestDirectory directory, StorageOptions? storage = null)
    {
        var listener = await BindAsync();
        try
        {
            var node = await ClusterNode.StartAsync(Options(directory, listener, storage));
            await Eventually.HoldsAsync(() => node.IsLeader, () => $"the single node {node.LocalEndPoint} does not lead (term {node.Term})");
            return node;
        }
        catch
        {
            await listener.DisposeAsync();
            throw;
        }
    }

    public static ClusterCommand Put(int sequence, string tree, byte[] key, byte[] value)
        => new(new OperationId(ClientId, sequence), tree, [ClusterOperation.Put(key, value)]);

    private static readonly Guid ClientId = Guid.NewGuid();
}
