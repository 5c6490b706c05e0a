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
/// disk full, and membership changes (ProcessCluster.Membership.cs). The nemesis's node numbers are places: each
/// holds one member, a founder or a fresh node added in a removed member's place. Every address the campaign may use
/// (the founders' and the fresh nodes') is bound to its ports and proxies from the start. Clients reach each node's
/// <see cref="ClusterNodeServer"/>; the test asks each node's control port for its status, dump and <c>Verify()</c>.
/// </summary>
internal sealed partial class ProcessCluster : INemesisTargets, IAsyncDisposable
{
    /// <summary>How long a question to one node may take before it counts as not answering (paused, killed, starting).</summary>
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(3);

    // Per address (founders first, then the fresh nodes in the order they are added).
    private readonly IPEndPoint[] addresses;
    private readonly IPEndPoint[] clientEndPoints;
    private readonly int[] controlPorts;
    private readonly NodeProcess?[] processes;

    // Per place: the address of the member it holds, or -1 while a removed member's place is empty.
    private readonly int[] placeAddress;
    private readonly string folder;
    private readonly long snapshotInterval;
    private readonly IReadOnlyList<NodeDisk>? disks;

    private ProcessCluster(int places, IPEndPoint[] addresses, IPEndPoint[] clientEndPoints, int[] controlPorts, string folder, long snapshotInterval, IReadOnlyList<NodeDisk>? disks)
    {
        this.addresses = addresses;
        this.clientEndPoints = clientEndPoints;
        this.controlPorts = controlPorts;
        this.folder = folder;
        this.snapshotInterval = snapshotInterval;
        this.disks = disks;
        processes = new NodeProcess?[addresses.Length];
        placeAddress = Enumerable.Range(0, places).ToArray();
        nextFresh = places;
        Network = new NemesisNetwork(addresses);
        Links = new PlaceNetwork(Network, placeAddress);
    }

    public NemesisNetwork Network { get; }

    /// <summary>The network as the nemesis sees it: by place.</summary>
    private PlaceNetwork Links { get; }

    INetworkNemesis INemesisTargets.Network => Links;

    public int NodeCount => placeAddress.Length;

    /// <summary>
    /// Starts <paramref name="count"/> founding node processes, their data under <paramref name="folder"/> (or on
    /// <paramref name="disks"/>, one per node), their output in <paramref name="folder"/>/logs, with room for
    /// <paramref name="freshNodes"/> nodes to be added later, and waits until each answers on its control port.
    /// </summary>
    public static async Task<ProcessCluster> StartAsync(string folder, int count, IReadOnlyList<NodeDisk>? disks = null, int freshNodes = 0,
        long snapshotInterval = ClusterNodeOptions.DefaultSnapshotInterval)
    {
        if (disks is not null && freshNodes > 0)
            throw new ArgumentException("Fresh nodes have no disk of their own: a campaign with disks keeps its membership.", nameof(freshNodes));
        var total = count + freshNodes;
        var members = Enumerable.Range(0, total).Select(_ => new IPEndPoint(IPAddress.Loopback, LoopbackPorts.Take())).ToArray();
        var clients = Enumerable.Range(0, total).Select(_ => new IPEndPoint(IPAddress.Loopback, LoopbackPorts.Take())).ToArray();
        var control = Enumerable.Range(0, total).Select(_ => LoopbackPorts.Take()).ToArray();
        var cluster = new ProcessCluster(count, members, clients, control, folder, snapshotInterval, disks);
        try
        {
            for (var i = 0; i < count; i++)
                await cluster.StartProcessAsync(i, founders: count);
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

    /// <summary>The process of the member in place <paramref name="node"/>.</summary>
    public NodeProcess Node(int node) => processes[AddressOf(node)] ?? throw new InvalidOperationException($"Node {node} was never started.");

    public IProcessNemesis Process(int node) => new TalliedProcess(this, node);

    public IDiskNemesis? Disk(int node) => disks?[node];

    /// <summary>A new connection to every address's client server (fresh nodes' too: a client skips those not up), for one client session.</summary>
    public RemoteNodeConnection[] Connect() => Enumerable.Range(0, addresses.Length).Select(i => new RemoteNodeConnection(addresses[i], clientEndPoints[i])).ToArray();

    /// <summary>
    /// Supervises the nodes: throws if any exited by itself other than as fail-stop (a crash the nemesis did not cause),
    /// with its output's tail; starts again each fail-stopped node whose disk has room (a supervisor's restart with the
    /// disk still full is refused clearly by the node and costs only churn, so this one waits for the space).
    /// </summary>
    public void ThrowIfAnyExited()
    {
        for (var address = 0; address < processes.Length; address++)
        {
            processes[address]?.ThrowIfExited();
            // Only founders have disks of their own (a campaign with disks adds no fresh nodes).
            if (processes[address] is { IsFailStopped: true } stopped && disks?[address].IsFull != true)
                stopped.RestartIfFailStoppedAsync().GetAwaiter().GetResult();
        }
    }

    /// <summary>How many times a fail-stopped node was started again, over all nodes.</summary>
    public int FailStopRestarts => processes.Sum(process => process?.FailStopRestarts ?? 0);

    /// <summary>Each place's member's status (null for a place that does not answer or is empty), asked all at once.</summary>
    public async Task<NodeStatus?[]> StatusesAsync()
        => await Task.WhenAll(Enumerable.Range(0, NodeCount).Select(i => placeAddress[i] >= 0 && Node(i).State == NodeProcessState.Running
            ? NodeControl.TryStatusAsync(ControlPort(i), Patience) : Task.FromResult<NodeStatus?>(null)));

    /// <summary>The place whose member says it leads in the highest term, among those that answer.</summary>
    public async Task<int?> FindLeaderAsync()
    {
        var statuses = await StatusesAsync();
        return Enumerable.Range(0, NodeCount).Where(i => statuses[i] is { IsLeader: true })
            .OrderByDescending(i => statuses[i]!.Term).Cast<int?>().FirstOrDefault();
    }

    /// <summary>
    /// Waits until every place's member answers, follows the same leader in the same term, and has the same commit
    /// and applied indexes; then until their dumps are equal (an entry applied between two dumps asks again).
    /// Removed members are not asked. Returns the dump.
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
            var dumps = Enumerable.Range(0, NodeCount).Select(i => NodeControl.DumpAsync(ControlPort(i), Eventually.HangDeadline).GetAwaiter().GetResult()).ToArray();
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

    /// <summary>Each place's member's <c>Verify()</c>: throws naming every node whose environment did not verify clean.</summary>
    public async Task VerifyAllAsync()
    {
        var lines = await Task.WhenAll(Enumerable.Range(0, NodeCount).Select(i => NodeControl.VerifyAsync(ControlPort(i), Eventually.HangDeadline)));
        var failed = Enumerable.Range(0, NodeCount).Where(i => !lines[i].StartsWith("ok", StringComparison.Ordinal)).ToArray();
        Assert.True(failed.Length == 0, string.Join("; ", failed.Select(i => $"node {i}: {lines[i]}")));
    }

    public string Describe(NodeStatus?[] statuses) => string.Join("; ", Enumerable.Range(0, NodeCount).Select(i => statuses[i] is { } s
        ? $"node {i} ({addresses[placeAddress[i]]}): leader {IndexOf(s.Leader)?.ToString() ?? "none"}, term {s.Term}, commit {s.CommitIndex}, applied {s.AppliedIndex}"
        : placeAddress[i] < 0 ? $"node {i}: empty (removed)" : $"node {i}: {Node(i).State}, no answer"));

    public async ValueTask DisposeAsync()
    {
        foreach (var process in processes)
        {
            if (process is not null)
                await process.DisposeAsync();
        }

        await Network.DisposeAsync();
    }

    private int AddressOf(int place) => placeAddress[place] is var address and >= 0
        ? address : throw new InvalidOperationException($"Place {place} is empty: its member was removed and none added yet.");

    private int ControlPort(int place) => controlPorts[AddressOf(place)];

    /// <summary>The place whose member has the Raft address <paramref name="endpoint"/>.</summary>
    private int? IndexOf(IPEndPoint? endpoint)
        => endpoint is null ? null : Array.FindIndex(placeAddress, a => a >= 0 && addresses[a].Equals(endpoint)) is var i and >= 0 ? i : null;

    /// <summary>Starts the node at <paramref name="address"/>: a founder, or (<paramref name="founders"/> 0) one that waits to be added.</summary>
    private async Task StartProcessAsync(int address, int founders)
    {
        var data = founders > 0 && disks is not null ? disks[address].DataPath : Directory.CreateDirectory(Path.Combine(folder, $"node{address}")).FullName;
        var arguments = new NodeHostArguments(address, data, addresses,
            Enumerable.Range(0, addresses.Length).Select(j => j == address ? null : Network.ProxyEndPoint(address, j)).ToArray(),
            clientEndPoints[address].Port, controlPorts[address])
        {
            Founders = founders,
            SnapshotInterval = snapshotInterval,
        };
        var host = Path.Combine(AppContext.BaseDirectory, "Cairn.Cluster.NodeHost.dll");
        var command = new NodeCommand("dotnet", [host, .. arguments.ToArguments()], data);
        processes[address] = await NodeProcess.StartAsync($"node{address}", command, Path.Combine(folder, "logs"));
        processes[address]!.DiskMayFill = founders > 0 && disks is not null;
    }

    private Task AnswersAsync(int address) => Eventually.HoldsAsync(() =>
    {
        processes[address]!.ThrowIfExited();
        return NodeControl.TryStatusAsync(controlPorts[address], Patience).GetAwaiter().GetResult() is not null;
    }, () => $"node at address {address} to answer on its control port: {processes[address]!.OutputTail()}");
}
