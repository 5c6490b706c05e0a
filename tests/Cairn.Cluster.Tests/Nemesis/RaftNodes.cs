using System.Net;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.Membership;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>
/// DotNext Raft members in this process, each on 127.0.0.1 with a port from the OS, all of whose traffic goes
/// through a <see cref="NemesisNetwork"/>. A member is known by its listen address everywhere (its
/// <c>ClusterMemberId</c> comes from it); only the dialling goes through the proxies, which DotNext's custom
/// transport lets a node choose (<see cref="NemesisConnectionFactory"/>). The log is DotNext's
/// <see cref="ConsensusOnlyState"/>: these nodes elect, they hold no data.
/// </summary>
internal sealed class RaftNodes : IAsyncDisposable
{
    private readonly RaftCluster[] nodes;
    private readonly EndPoint[] members;
    private readonly PreboundListenerFactory[] listeners;
    private readonly SocketConnectionContextFactory contexts;

    private RaftNodes(
        RaftCluster[] nodes, EndPoint[] members, PreboundListenerFactory[] listeners, NemesisNetwork network, SocketConnectionContextFactory contexts)
    {
        this.nodes = nodes;
        this.members = members;
        this.listeners = listeners;
        this.contexts = contexts;
        Network = network;
    }

    public NemesisNetwork Network { get; }

    public int Count => nodes.Length;

    public static async Task<RaftNodes> StartAsync(int count)
    {
        var transport = new SocketTransportFactory(Options.Create(new SocketTransportOptions()), NullLoggerFactory.Instance);
        var listeners = new PreboundListenerFactory[count];
        for (var i = 0; i < count; i++)
            listeners[i] = new PreboundListenerFactory(await transport.BindAsync(new IPEndPoint(IPAddress.Loopback, 0)));
        var members = listeners.Select(listener => listener.EndPoint).ToArray();
        var network = new NemesisNetwork(members);
        var contexts = new SocketConnectionContextFactory(new SocketConnectionFactoryOptions(), NullLogger.Instance);
        var nodes = new RaftCluster[count];
        for (var i = 0; i < count; i++)
        {
            var dialler = new NemesisConnectionFactory(i, network, members, contexts);
            nodes[i] = new RaftCluster(Configure(members, i, listeners[i], dialler))
            {
                AuditTrail = new ConsensusOnlyState(),
            };
        }

        var started = new RaftNodes(nodes, members, listeners, network, contexts);
        try
        {
            await Task.WhenAll(nodes.Select(node => node.StartAsync()));
        }
        catch
        {
            await started.DisposeAsync();
            throw;
        }

        return started;
    }

    /// <summary>The node <paramref name="node"/> follows (or itself, if it leads), or null while it knows none.</summary>
    public int? LeaderSeenBy(int node)
        => nodes[node].Leader is { } leader ? Array.FindIndex(members, member => member.Equals(leader.EndPoint)) : null;

    public long TermOf(int node) => nodes[node].AuditTrail.Term;

    /// <summary>
    /// The leader every node of <paramref name="group"/> follows, when they all follow the same one, which is in
    /// the group and follows itself, and they are all in the same term; else null.
    /// </summary>
    public int? LeaderAgreedBy(IReadOnlyList<int> group)
    {
        if (LeaderSeenBy(group[0]) is not { } leader || !group.Contains(leader) || LeaderSeenBy(leader) != leader)
            return null;
        var term = TermOf(leader);
        return group.All(node => LeaderSeenBy(node) == leader && TermOf(node) == term) ? leader : null;
    }

    public string Describe()
        => string.Join("; ", Enumerable.Range(0, Count).Select(node => $"node {node} follows {LeaderSeenBy(node)?.ToString() ?? "none"} in term {TermOf(node)}"));

    public async ValueTask DisposeAsync()
    {
        foreach (var node in nodes)
            await node.StopAsync();
        foreach (var node in nodes)
        {
            await node.DisposeAsync();
            ((ConsensusOnlyState)node.AuditTrail).Dispose();
        }

        foreach (var listener in listeners)
            await listener.DisposeAsync();
        await Network.DisposeAsync();
        contexts.Dispose();
    }

    private static RaftCluster.CustomTransportConfiguration Configure(
        EndPoint[] members, int node, IConnectionListenerFactory listener, IConnectionFactory dialler)
    {
        var configuration = new RaftCluster.CustomTransportConfiguration(members[node], listener, dialler)
        {
            // A fixed membership: every node starts knowing all of them, none bootstraps alone.
            ColdStart = false,
            ConfigurationStorage = null,
            // Longer than DotNext's recommended 150-300 ms, so that two shared, loaded cores do not keep every
            // election failing; the test waits for outcomes, so slower elections only make it slower.
            LowerElectionTimeout = 500,
            UpperElectionTimeout = 1000,
        };
        // Left null above, DotNext makes an in-memory storage; it is seeded here before the node starts.
        var storage = configuration.ConfigurationStorage as InMemoryClusterConfigurationStorage<EndPoint>
            ?? throw new InvalidOperationException("DotNext no longer gives an in-memory configuration storage for null.");
        var initial = storage.CreateInitialConfigurationBuilder();
        foreach (var member in members)
            initial.Add(member);
        initial.Build();
        return configuration;
    }
}
