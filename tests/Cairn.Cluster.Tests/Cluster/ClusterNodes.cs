using System.Net;
using Cairn.Cluster.InProcess;
using Cairn.Cluster.NodeHost;
using Cairn.Cluster.Tests.Nemesis;
using Cairn.Tests.Support;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// Cairn.Cluster nodes in this process, each with its environment and log on disk in a scratch folder, all of whose
/// Raft traffic goes through a <see cref="NemesisNetwork"/>. A node can be stopped (disposed, as a crash that
/// loses nothing unsynced) and started again on the same folder and address. Slots past the founding members are
/// spare: bound and wired into the network from the start, started later as nodes that join (no founding members).
/// </summary>
internal sealed class ClusterNodes : IAsyncDisposable
{
    private readonly TestDirectory directory;
    private readonly EndPoint[] members;
    private readonly EndPoint[] founding;
    private readonly PreboundListenerFactory?[] spareListeners;
    private readonly ClusterNodeSlots nodes;
    private readonly long snapshotInterval;
    private readonly SocketTransportFactory transport = new(Options.Create(new SocketTransportOptions()), NullLoggerFactory.Instance);
    private readonly SocketConnectionContextFactory contexts = new(new SocketConnectionFactoryOptions(), NullLogger.Instance);

    private ClusterNodes(TestDirectory directory, EndPoint[] members, int founders, NemesisNetwork network, long snapshotInterval)
    {
        this.directory = directory;
        this.snapshotInterval = snapshotInterval;
        this.members = members;
        founding = members[..founders];
        spareListeners = new PreboundListenerFactory?[members.Length];
        nodes = new ClusterNodeSlots(members);
        Network = network;
    }

    public NemesisNetwork Network { get; }

    public int Count => nodes.Count;

    public ClusterNode this[int node] => nodes[node];

    /// <summary>Every node, as a client sees them (a stopped node's connection throws <see cref="ObjectDisposedException"/>).</summary>
    public IReadOnlyList<IClusterNodeConnection> Connections => Enumerable.Range(0, Count).Select(nodes.Connection).ToArray();

    /// <summary>Binds <paramref name="count"/> slots and starts the first <paramref name="founders"/> (all by default) as the founding members.</summary>
    public static async Task<ClusterNodes> StartAsync(int count, string name, long snapshotInterval = ClusterNodeOptions.DefaultSnapshotInterval, int? founders = null)
    {
        var foundingCount = founders ?? count;
        var directory = new TestDirectory(name);
        var transport = new SocketTransportFactory(Options.Create(new SocketTransportOptions()), NullLoggerFactory.Instance);
        var listeners = new PreboundListenerFactory[count];
        for (var i = 0; i < count; i++)
            listeners[i] = new PreboundListenerFactory(await transport.BindAsync(new IPEndPoint(IPAddress.Loopback, 0)));
        var members = listeners.Select(listener => listener.EndPoint).ToArray();
        var started = new ClusterNodes(directory, members, foundingCount, new NemesisNetwork(members), snapshotInterval);
        for (var i = foundingCount; i < count; i++)
            started.spareListeners[i] = listeners[i];
        try
        {
            await Task.WhenAll(Enumerable.Range(0, foundingCount).Select(i => started.StartNodeAsync(i, listeners[i])));
        }
        catch
        {
            await started.DisposeAsync();
            throw;
        }

        return started;
    }

    public Task StopAsync(int node) => nodes.StopAsync(node);

    /// <summary>Starts a stopped node again on its folder and address (the port is free again once it stopped).</summary>
    public async Task RestartAsync(int node)
        => await StartNodeAsync(node, new PreboundListenerFactory(await transport.BindAsync(members[node])));

    /// <summary>Starts a spare slot for the first time, as a node with no founding members, waiting to be added.</summary>
    public Task StartJoiningAsync(int node)
        => StartNodeAsync(node, Interlocked.Exchange(ref spareListeners[node], null) ?? throw new InvalidOperationException($"Slot {node} is not a spare never started."));

    /// <summary>Slot <paramref name="node"/>'s Raft log folder (DotNext's WriteAheadLog files).</summary>
    public string RaftLogPath(int node) => Path.Combine(directory.File($"node{node}"), "raft");

    /// <summary>Slot <paramref name="node"/>'s address: its id in the cluster.</summary>
    public EndPoint Address(int node) => members[node];

    /// <summary>The slots whose addresses <paramref name="endpoints"/> are, in slot order.</summary>
    public int[] SlotsOf(IEnumerable<EndPoint> endpoints) => endpoints.Select(e => IndexOf(e) ?? -1).Order().ToArray();

    public bool IsRunning(int node) => nodes.IsRunning(node);

    /// <summary>The node of <paramref name="group"/> that every running node of it follows, once they agree.</summary>
    public Task<int> LeaderOfAsync(IReadOnlyList<int> group) => LeaderOfAsync(group, afterTerm: 0);

    /// <summary>
    /// The node of <paramref name="group"/> that every running node of it follows in a term later than
    /// <paramref name="afterTerm"/>. A case that starts again after a leadership ended passes that leadership's term:
    /// a leader that stepped down keeps naming itself until its state changes, and asking it again would count the
    /// same leadership twice.
    /// </summary>
    public async Task<int> LeaderOfAsync(IReadOnlyList<int> group, long afterTerm)
    {
        int? leader = null;
        await Eventually.HoldsAsync(() => (leader = AgreedLeader(group)) is { } found && this[found].Term > afterTerm,
            () => $"no agreed leader among {string.Join(",", group)} after term {afterTerm}: {Describe()}");
        return leader!.Value;
    }

    /// <summary>Waits until every running node has applied the same index, at least <paramref name="atLeast"/>.</summary>
    public Task ConvergedAsync(long atLeast = 0) => ConvergedAsync(Running().ToArray(), atLeast);

    /// <summary>Waits until every running node of <paramref name="group"/> has applied the same index, at least <paramref name="atLeast"/>.</summary>
    public Task ConvergedAsync(IReadOnlyList<int> group, long atLeast) => Eventually.HoldsAsync(() =>
    {
        var applied = group.Where(IsRunning).Select(i => this[i].AppliedIndex).Distinct().ToArray();
        return applied.Length == 1 && applied[0] >= atLeast;
    }, Describe);

    /// <summary>Every tree's keys and values on <paramref name="node"/>, the cluster's own trees included, as text.</summary>
    public string Dump(int node) => NodeDump.Of(this[node]);

    /// <summary>Same dump on every running node, and each environment verifies clean.</summary>
    public void AssertConvergedAndVerified() => AssertConvergedAndVerified(Running().ToArray());

    /// <summary>Same dump on every running node of <paramref name="group"/>, and each environment verifies clean.</summary>
    public void AssertConvergedAndVerified(IReadOnlyList<int> group)
    {
        var running = group.Where(IsRunning).ToArray();
        var first = Dump(running[0]);
        foreach (var node in running)
        {
            Assert.Equal(first, Dump(node));
            this[node].Verify(); // throws on any damage
        }
    }

    public string Describe() => nodes.Describe(leader => IndexOf(leader)?.ToString() ?? "none");

    public async ValueTask DisposeAsync()
    {
        await nodes.StopAllAsync();
        foreach (var spare in spareListeners)
        {
            if (spare is not null)
                await spare.DisposeAsync();
        }

        await Network.DisposeAsync();
        contexts.Dispose();
        directory.Dispose();
    }

    private IEnumerable<int> Running() => nodes.Running();

    private int? AgreedLeader(IReadOnlyList<int> group)
    {
        var running = group.Where(IsRunning).ToArray();
        if (running.Length == 0 || IndexOf(this[running[0]].Leader) is not { } leader || !running.Contains(leader) || !this[leader].IsLeader)
            return null;
        var term = this[leader].Term;
        return running.All(i => IndexOf(this[i].Leader) == leader && this[i].Term == term) ? leader : null;
    }

    private int? IndexOf(EndPoint? endpoint) => endpoint is null ? null : Array.FindIndex(members, m => m.Equals(endpoint)) is var i and >= 0 ? i : null;

    private async Task StartNodeAsync(int node, PreboundListenerFactory listener)
    {
        var options = new ClusterNodeOptions
        {
            DirectoryPath = directory.File($"node{node}"),
            LocalEndPoint = members[node],
            // Read only on a slot's first start: the founders know each other, a spare joins with none.
            Members = node < founding.Length ? founding : [],
            Listener = listener,
            Dialler = new NemesisConnectionFactory(node, Network, members, contexts),
            // Longer than DotNext's 150-300 ms so that two loaded cores do not keep elections failing (see RaftNodes).
            LowerElectionTimeout = 500,
            UpperElectionTimeout = 1000,
            SnapshotInterval = snapshotInterval,
        };
        try
        {
            nodes.Started(node, await ClusterNode.StartAsync(options));
        }
        catch
        {
            await listener.DisposeAsync();
            throw;
        }
    }
}
