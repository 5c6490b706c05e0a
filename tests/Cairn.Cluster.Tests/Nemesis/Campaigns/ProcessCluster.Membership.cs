using System.Globalization;
using Cairn.Cluster.NodeHost;
using Cairn.Cluster.Tests.Nemesis.Processes;
using Cairn.Cluster.Tests.Nemesis.Schedule;

namespace Cairn.Cluster.Tests.Nemesis.Campaigns;

/// <summary>
/// Membership changes on node processes, each asked of whichever member leads on its control port
/// (<see cref="ControlRequests.AddMember"/>, <see cref="ControlRequests.RemoveMember"/>) and asked again, of the
/// leader found then, until one answers that it committed; and the tally of snapshot installs, which a node keeps
/// only for its run, so each run's count is asked just before the nemesis ends it.
/// </summary>
internal sealed partial class ProcessCluster : IMembershipNemesis
{
    // Guards nextFresh, the membership counters and the install tally: the runner and the final checks may overlap.
    private readonly Lock tally = new();
    private int nextFresh;
    private long installsOfEndedRuns;

    /// <summary>Members removed (a dead one replaced counts once here and once in <see cref="Added"/>).</summary>
    public int Removed { get; private set; }

    /// <summary>Of <see cref="Removed"/>, the members that led when they were removed (the change was asked of them).</summary>
    public int RemovedLeaders { get; private set; }

    /// <summary>Fresh nodes added.</summary>
    public int Added { get; private set; }

    /// <summary>Of <see cref="Added"/>, those that had installed a snapshot by the time their add committed.</summary>
    public int AddedBySnapshot { get; private set; }

    IMembershipNemesis? INemesisTargets.Membership => addresses.Length > NodeCount ? this : null;

    public async Task RemoveAsync(int node)
    {
        var address = AddressOf(node);
        var removedBy = await ChangeThroughLeaderAsync(ControlRequests.RemoveMember, address);
        var process = processes[address]!;
        if (process.State is NodeProcessState.Running or NodeProcessState.Paused)
        {
            await TallyInstallsAsync(address);
            await process.KillAsync(); // a removed member stands by: nothing of it is checked any more
        }

        placeAddress[node] = -1;
        lock (tally)
        {
            Removed++;
            RemovedLeaders += removedBy == node ? 1 : 0;
        }
    }

    public async Task AddFreshAsync(int node)
    {
        if (placeAddress[node] >= 0)
            throw new InvalidOperationException($"Place {node} holds a member: remove it before adding another there.");
        int address;
        lock (tally)
        {
            if (nextFresh >= addresses.Length)
                throw new InvalidOperationException($"All {addresses.Length - NodeCount} fresh nodes are used.");
            address = nextFresh++;
        }

        await StartProcessAsync(address, founders: 0);
        await AnswersAsync(address);
        await ChangeThroughLeaderAsync(ControlRequests.AddMember, address);
        placeAddress[node] = address;
        // DotNext brings a node up to date before it commits the configuration naming it: by now it has its snapshot, if it needed one.
        var bySnapshot = await NodeControl.TryInstallsAsync(controlPorts[address], Patience) > 0;
        lock (tally)
        {
            Added++;
            AddedBySnapshot += bySnapshot ? 1 : 0;
        }
    }

    public async Task ReplaceAsync(int node)
    {
        if (Node(node).State != NodeProcessState.Killed)
            throw new InvalidOperationException($"Node {node} is {Node(node).State}: only a dead member is replaced.");
        await RemoveAsync(node);
        await AddFreshAsync(node);
    }

    /// <summary>Snapshots installed by every node: the runs ended so far and the running ones now (a lower bound: an install just before a kill may be missed).</summary>
    public async Task<long> SnapshotInstallsAsync()
    {
        var running = await Task.WhenAll(Enumerable.Range(0, addresses.Length)
            .Where(a => processes[a]?.State == NodeProcessState.Running)
            .Select(a => NodeControl.TryInstallsAsync(controlPorts[a], Patience)));
        lock (tally)
            return installsOfEndedRuns + running.Sum();
    }

    /// <summary>
    /// Waits until every place's member knows the same members, exactly the places' addresses: the removed ones out,
    /// the added ones in.
    /// </summary>
    public async Task MembershipAgreesAsync()
    {
        var expected = string.Join(',', Enumerable.Range(0, NodeCount).Select(i => addresses[AddressOf(i)].ToString()).Order(StringComparer.Ordinal));
        string last = "not asked yet";
        await Eventually.HoldsAsync(() =>
        {
            var known = Enumerable.Range(0, NodeCount)
                .Select(i => NodeControl.TryAskLineAsync(ControlPort(i), ControlRequests.Members, Patience).GetAwaiter().GetResult()).ToArray();
            last = string.Join("; ", known.Select((k, i) => $"node {i}: {k}"));
            return known.All(k => string.Join(',', k.Split(',').Order(StringComparer.Ordinal)) == expected);
        }, () => $"every member to know the members {expected}: {last}");
    }

    /// <summary>Asks the leader found (again and again) to make the change until one answers it committed; returns that leader's place.</summary>
    private async Task<int> ChangeThroughLeaderAsync(string request, int address)
    {
        var ask = $"{request} {addresses[address]}";
        var last = "no leader asked yet";
        var committedBy = -1;
        await Eventually.HoldsAsync(() =>
        {
            ThrowIfAnyExited();
            if (FindLeaderAsync().GetAwaiter().GetResult() is not { } leader)
                return false;
            var answer = NodeControl.TryAskLineAsync(ControlPort(leader), ask, Eventually.HangDeadline).GetAwaiter().GetResult();
            last = $"node {leader}: {answer}";
            // An add asked again after an unknown outcome finds the id in use: that first add committed.
            if (answer != "ok" && !(request == ControlRequests.AddMember && answer == "in-use"))
                return false;
            committedBy = leader;
            return true;
        }, () => $"'{ask}' to commit: {last}");
        return committedBy;
    }

    private async Task TallyInstallsAsync(int address)
    {
        var installs = await NodeControl.TryInstallsAsync(controlPorts[address], Patience);
        lock (tally)
            installsOfEndedRuns += installs;
    }

    /// <summary>A place's process as the nemesis drives it; a kill first tallies the run's snapshot installs.</summary>
    private sealed class TalliedProcess(ProcessCluster cluster, int node) : IProcessNemesis
    {
        public async Task KillAsync()
        {
            if (cluster.Node(node).State == NodeProcessState.Running)
                await cluster.TallyInstallsAsync(cluster.AddressOf(node));
            await cluster.Node(node).KillAsync();
        }

        public Task RestartAsync() => cluster.Node(node).RestartAsync();

        public Task PauseAsync() => cluster.Node(node).PauseAsync();

        public Task ResumeAsync() => cluster.Node(node).ResumeAsync();
    }
}
