using System.Net;
using Cairn.Cluster.NodeHost;
using Cairn.Cluster.Tests.Nemesis.Disks;
using Cairn.Cluster.Tests.Nemesis.Processes;
using Cairn.Cluster.Tests.Nemesis.Schedule;

namespace Cairn.Cluster.Tests.Nemesis.Campaigns;

/// <summary>
/// A cluster of node processes (tests/Cairn.Cluster.NodeHost) on 127.0.0.1, their Raft traffic through this test's
/// <see cref="NemesisNetwork"/>, each node's data in a folder of its own (on a <see cref="NodeDisk"/> when it has
/// one), as the nemesis's targets: SIGKILL, restart, SIGSTOP/SIGCONT of a process, partitions through the proxies,
/// disk full. Clients reach each node's <see cref="ClusterNodeServer"/>; the test asks each node's control port for
/// its status, dump and <c>Verify()</c>.
/// </summary>
internal sealed class ProcessCluster : INemesisTargets, IAsyncDisposable
{
    /// <summary>How long a question to one node may take before it counts as not answering (paused, killed, starting).</summary>
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(3);

    private readonly IPEndPoint[] members;
    private readonly IPEndPoint[] clientEndPoints;
    private readonly int[] controlPorts;
    private readonly NodeProcess?[] nodes;
    private readonly IReadOnlyList<NodeDisk>? disks;

    private ProcessCluster(IPEndPoint[] members, IPEndPoint[] clientEndPoints, int[] controlPorts, NemesisNetwork network, IReadOnlyList<NodeDisk>? disks)
    {
        this.members = members;
        this.clientEndPoints = clientEndPoints;
        this.controlPorts = controlPorts;
        this.disks = disks;
        nodes = new NodeProcess?[members.Length];
        Network = network;
    }

    public NemesisNetwork Network { get; }

    INetworkNemesis INemesisTargets.Network => Network;

    public int NodeCount => nodes.Length;

    /// <summary>
    /// Starts <paramref name="count"/> node processes, their data under <paramref name="folder"/> (or on
    /// <paramref name="disks"/>, one per node), their output in <paramref name="folder"/>/logs, and waits until each
    /// answers on its control port.
    /// </summary>
    public static async Task<ProcessCluster> StartAsync(string folder, int count, IReadOnlyList<NodeDisk>? disks = null)
    {
        var members = Enumerable.Range(0, count).Select(_ => new IPEndPoint(IPAddress.Loopback, LoopbackPorts.Take())).ToArray();
        var clients = Enumerable.Range(0, count).Select(_ => new IPEndPoint(IPAddress.Loopback, LoopbackPorts.Take())).ToArray();
        var control = Enumerable.Range(0, count).Select(_ => LoopbackPorts.Take()).ToArray();
        var cluster = new ProcessCluster(members, clients, control, new NemesisNetwork(members), disks);
        try
        {
            var host = Path.Combine(AppContext.BaseDirectory, "Cairn.Cluster.NodeHost.dll");
            for (var i = 0; i < count; i++)
            {
                var data = disks?[i].DataPath ?? Directory.CreateDirectory(Path.Combine(folder, $"node{i}")).FullName;
                var arguments = new NodeHostArguments(i, data, members,
                    Enumerable.Range(0, count).Select(j => j == i ? null : cluster.Network.ProxyEndPoint(i, j)).ToArray(),
                    clients[i].Port, control[i]);
                var command = new NodeCommand("dotnet", [host, .. arguments.ToArguments()], data);
                cluster.nodes[i] = await NodeProcess.StartAsync($"node{i}", command, Path.Combine(folder, "logs"));
                cluster.nodes[i]!.DiskMayFill = disks is not null;
            }

            for (var i = 0; i < count; i++)
                await cluster.AnswersAsync(i);
        }
        catch
        {
            await cluster.DisposeAsync();
            throw;
        }

        return cluster;
    }

    public NodeProcess Node(int node) => nodes[node] ?? throw new InvalidOperationException($"Node {node} was never started.");

    public IProcessNemesis Process(int node) => Node(node);

    public IDiskNemesis? Disk(int node) => disks?[node];

    /// <summary>A new connection to each node's client server, for one client session.</summary>
    public RemoteNodeConnection[] Connect() => Enumerable.Range(0, NodeCount).Select(i => new RemoteNodeConnection(members[i], clientEndPoints[i])).ToArray();

    /// <summary>
    /// Supervises the nodes: throws if any exited by itself other than as fail-stop (a crash the nemesis did not cause),
    /// with its output's tail; starts again each fail-stopped node whose disk has room (a supervisor's restart with the
    /// disk still full is refused clearly by the node and costs only churn, so this one waits for the space).
    /// </summary>
    public void ThrowIfAnyExited()
    {
        for (var i = 0; i < nodes.Length; i++)
        {
            nodes[i]?.ThrowIfExited();
            if (nodes[i] is { IsFailStopped: true } stopped && disks?[i].IsFull != true)
                stopped.RestartIfFailStoppedAsync().GetAwaiter().GetResult();
        }
    }

    /// <summary>How many times a fail-stopped node was started again, over all nodes.</summary>
    public int FailStopRestarts => nodes.Sum(node => node?.FailStopRestarts ?? 0);

    /// <summary>The running nodes' statuses (null for a node that does not answer), asked all at once.</summary>
    public async Task<NodeStatus?[]> StatusesAsync()
        => await Task.WhenAll(Enumerable.Range(0, NodeCount).Select(i
            => Node(i).State == NodeProcessState.Running ? NodeControl.TryStatusAsync(controlPorts[i], Patience) : Task.FromResult<NodeStatus?>(null)));

    /// <summary>The node that says it leads in the highest term, among those that answer.</summary>
    public async Task<int?> FindLeaderAsync()
    {
        var statuses = await StatusesAsync();
        return Enumerable.Range(0, NodeCount).Where(i => statuses[i] is { IsLeader: true })
            .OrderByDescending(i => statuses[i]!.Term).Cast<int?>().FirstOrDefault();
    }

    /// <summary>
    /// Waits until every node answers, follows the same leader in the same term, and has the same commit and applied
    /// indexes; then until their dumps are equal (an entry applied between two dumps asks again).
    /// Returns the dump.
    /// </summary>
    public async Task<string> ConvergedDumpAsync()
    {
        string? dump = null;
        string last = "not asked yet";
        await Eventually.HoldsAsync(() =>
        {
            ThrowIfAnyExited();
            var statuses = StatusesAsync().GetAwaiter().GetResult();
            last = Describe(statuses);
            if (statuses.Any(s => s is null))
                return false;
            var first = statuses[0]!;
            // Applied is the state machine's last entry with a payload: DotNext applies empty entries (an election's
            // or a read's no-op) itself, so it trails the commit index once those are last; equal on every node it is.
            if (first.Leader is null || statuses.Any(s => !Equals(s!.Leader, first.Leader) || s.Term != first.Term
                || s.CommitIndex != first.CommitIndex || s.AppliedIndex != first.AppliedIndex))
                return false;
            var dumps = Enumerable.Range(0, NodeCount).Select(i => NodeControl.DumpAsync(controlPorts[i], Eventually.HangDeadline).GetAwaiter().GetResult()).ToArray();
            if (dumps.Distinct().Count() != 1)
            {
                last = $"{last}; dumps differ ({string.Join(", ", dumps.Select(d => $"{d.Length} chars"))})";
                return false;
            }

            dump = dumps[0];
            return true;
        }, () => $"the nodes to converge: {last}");
        return dump!;
    }

    /// <summary>Each node's <c>Verify()</c>: throws naming every node whose environment did not verify clean.</summary>
    public async Task VerifyAllAsync()
    {
        var lines = await Task.WhenAll(Enumerable.Range(0, NodeCount).Select(i => NodeControl.VerifyAsync(controlPorts[i], Eventually.HangDeadline)));
        var failed = Enumerable.Range(0, NodeCount).Where(i => !lines[i].StartsWith("ok", StringComparison.Ordinal)).ToArray();
        Assert.True(failed.Length == 0, string.Join("; ", failed.Select(i => $"node {i}: {lines[i]}")));
    }

    public string Describe(NodeStatus?[] statuses) => string.Join("; ", Enumerable.Range(0, NodeCount).Select(i => statuses[i] is { } s
        ? $"node {i}: leader {IndexOf(s.Leader)?.ToString() ?? "none"}, term {s.Term}, commit {s.CommitIndex}, applied {s.AppliedIndex}"
        : $"node {i}: {Node(i).State}, no answer"));

    public async ValueTask DisposeAsync()
    {
        foreach (var node in nodes)
        {
            if (node is not null)
                await node.DisposeAsync();
        }

        await Network.DisposeAsync();
    }

    private int? IndexOf(IPEndPoint? endpoint) => endpoint is null ? null : Array.IndexOf(members, endpoint) is var i and >= 0 ? i : null;

    private Task AnswersAsync(int node) => Eventually.HoldsAsync(() =>
    {
        Node(node).ThrowIfExited();
        return NodeControl.TryStatusAsync(controlPorts[node], Patience).GetAwaiter().GetResult() is not null;
    }, () => $"node {node} to answer on its control port: {Node(node).OutputTail()}");
}
