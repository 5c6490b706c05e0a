using System.Net;

namespace Cairn.Cluster.Hosting;

/// <summary>
/// One cluster node as a host runs it (<c>services.AddCairnCluster(name, ...)</c>): the node's own
/// <see cref="ClusterNodeOptions"/> under <see cref="Node"/>, and where its clients reach it. Bound from a
/// configuration section such as <c>{ "Node": { "DirectoryPath": "/var/lib/orders/node1", "LocalEndPoint":
/// "127.0.0.1:7001", "Members": [ "127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003" ], "Storage": { ... } },
/// "ClientEndPoint": "127.0.0.1:7101" }</c>: every <see cref="ClusterNodeOptions"/> option under its own name,
/// addresses written <c>host:port</c>.
/// </summary>
public sealed class CairnClusterOptions
{
    /// <summary>
    /// The node (required): bound from the section's <c>"Node"</c> subsection, or set whole in code. Its
    /// <see cref="ClusterNodeOptions.Storage"/> gets the registration's name and the host's logging and metrics where
    /// it sets none.
    /// </summary>
    public ClusterNodeOptions? Node { get; set; }

    /// <summary>
    /// Where the node's <see cref="ClusterNodeServer"/> listens for clients in other processes
    /// (<see cref="RemoteNodeConnection"/>, <c>cairn cluster status</c>); null: no server, the node serves only its own
    /// process. Default: null.
    /// </summary>
    public IPEndPoint? ClientEndPoint { get; set; }
}
