using System.Net;
using System.Net.Sockets;
using Cairn.Cluster.InProcess;

namespace Cairn.Cluster.Bench;

/// <summary>
/// Three (or <c>count</c>) Cairn.Cluster nodes in this process, each with its environment and Raft log on this
/// machine's disk and its Raft traffic over loopback TCP. A node can be killed (stopped without a hand-over: DotNext
/// does not resign on stop, so the others learn it only when its heartbeats stop, as after a crash) and restarted on
/// its folder and address.
/// </summary>
internal sealed class BenchCluster : IAsyncDisposable
{
    private readonly Scratch scratch;
    private readonly EndPoint[] members;
    private readonly ClusterNodeSlots nodes;
    private readonly int lowerElection;
    private readonly int upperElection;

    private BenchCluster(Scratch scratch, EndPoint[] members, int lowerElection, int upperElection)
    {
        this.scratch = scratch;
        this.members = members;
        this.lowerElection = lowerElection;
        this.upperElection = upperElection;
        nodes = new ClusterNodeSlots(members);
    }

    public int Count => nodes.Count;

    public ClusterNode this[int node] => nodes[node];

    public bool IsRunning(int node) => nodes.IsRunning(node);

    /// <summary>The highest commit index of the running nodes (the leader's): entries the cluster has committed.</summary>
    public long CommitIndex => Running().Max(i => this[i].CommitIndex);

    public static async Task<BenchCluster> StartAsync(int count, int lowerElection, int upperElection)
    {
        var scratch = new Scratch("cluster");
        var members = Enumerable.Range(0, count).Select(_ => (EndPoint)new IPEndPoint(IPAddress.Loopback, FreePort())).ToArray();
        var cluster = new BenchCluster(scratch, members, lowerElection, upperElection);
        try
        {
            await Task.WhenAll(Enumerable.Range(0, count).Select(cluster.StartNodeAsync));
            await cluster.LeaderAsync();
        }
        catch
        {
            await cluster.DisposeAsync();
            throw;
        }

        return cluster;
    }

    /// <summary>Connections for a client: each running node (a stopped one throws <see cref="ObjectDisposedException"/>).</summary>
    public IReadOnlyList<IClusterNodeConnection> Connections(IEnumerable<int> which)
        => which.Select(nodes.Connection).ToArray();

    /// <summary>The node every running node follows, once they agree.</summary>
    public async Task<int> LeaderAsync()
    {
        var leader = -1;
        await Measure.UntilAsync(() => (leader = AgreedLeader()) >= 0, Describe);
        return leader;
    }

    public Task KillAsync(int node) => nodes.StopAsync(node);

    public Task RestartAsync(int node) => StartNodeAsync(node);

    /// <summary>Waits until every running node has applied the same index.</summary>
    public Task ConvergedAsync() => Measure.UntilAsync(() =>
        Running().Select(i => this[i].AppliedIndex).Distinct().Count() == 1, Describe);

    public string Describe() => nodes.Describe(leader => leader?.ToString() ?? "none");

    public async ValueTask DisposeAsync()
    {
        await nodes.StopAllAsync();
        scratch.Dispose();
    }

    private IEnumerable<int> Running() => nodes.Running();

    private int AgreedLeader()
    {
        var running = Running().ToArray();
        var leader = running.Where(i => nodes.RunningAt(i)?.IsLeader == true).ToArray();
        if (leader.Length != 1)
            return -1;
        var endpoint = members[leader[0]];
        return running.All(i => Equals(nodes.RunningAt(i)?.Leader, endpoint)) ? leader[0] : -1;
    }

    private async Task StartNodeAsync(int node)
    {
        nodes.Started(node, await ClusterNode.StartAsync(new ClusterNodeOptions
        {
            DirectoryPath = scratch.Sub($"node{node}"),
            LocalEndPoint = members[node],
            Members = members,
            LowerElectionTimeout = lowerElection,
            UpperElectionTimeout = upperElection,
        }));
    }

    private static int FreePort()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }
}
