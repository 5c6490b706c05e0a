namespace Cairn.Cluster.Hosting;

/// <summary>
/// One registration's running node and server, set when the host starts them: what the container hands out as the
/// registration's <see cref="ClusterNode"/>, and what the lifetime stops.
/// </summary>
internal sealed class ClusterNodeHandle(string name) : IAsyncDisposable
{
    private readonly Lock gate = new(); // protects node and server
    private ClusterNode? node;
    private ClusterNodeServer? server;

    public ClusterNode Node
    {
        get
        {
            lock (gate)
                return node ?? throw new InvalidOperationException(
                    $"Cairn cluster node '{name}' is not running: the host starts it (IHost.StartAsync) and stops it with itself.");
        }
    }

    public void Started(ClusterNode startedNode, ClusterNodeServer? startedServer)
    {
        lock (gate)
        {
            node = startedNode;
            server = startedServer;
        }
    }

    public async ValueTask StopAsync()
    {
        ClusterNode? stoppingNode;
        ClusterNodeServer? stoppingServer;
        lock (gate)
        {
            (stoppingNode, stoppingServer) = (node, server);
            (node, server) = (null, null);
        }

        if (stoppingServer is not null)
            await stoppingServer.DisposeAsync().ConfigureAwait(false);
        if (stoppingNode is not null)
            await stoppingNode.DisposeAsync().ConfigureAwait(false);
    }

    // The container disposes the handle after the host stopped; a host that never ran StopAsync still closes the node.
    public ValueTask DisposeAsync() => StopAsync();
}
