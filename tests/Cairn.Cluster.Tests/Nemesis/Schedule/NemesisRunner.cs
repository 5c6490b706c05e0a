namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>
/// Applies a schedule to a cluster, in order, logging each event. A schedule names nodes before anyone knows who
/// will lead; an event that wants the leader (or a follower) asks the cluster at apply time and, when the node it
/// wants is healthy like the planned one, trades the two in its map from schedule nodes to cluster nodes. Only
/// healthy nodes are traded, so every fault in force keeps its node and the schedule's fault limit holds on the
/// cluster's nodes too. When the leader is unknown, or the trade would move a fault, the planned node is used.
/// </summary>
public sealed class NemesisRunner
{
    private readonly INemesisTargets targets;
    private readonly NemesisEventLog log;
    private readonly FaultState state;
    private readonly int[] clusterNodeOf;

    public NemesisRunner(INemesisTargets targets, NemesisEventLog log)
    {
        this.targets = targets ?? throw new ArgumentNullException(nameof(targets));
        this.log = log ?? throw new ArgumentNullException(nameof(log));
        state = new FaultState(targets.NodeCount);
        clusterNodeOf = Enumerable.Range(0, targets.NodeCount).ToArray();
    }

    public NemesisEventLog Log => log;

    /// <summary>
    /// Applies <paramref name="schedule"/> in order; <paramref name="afterEach"/> (the campaign's pacing: let clients
    /// work, wait for a leader) runs after each event.
    /// </summary>
    public async Task RunAsync(IEnumerable<NemesisEvent> schedule, Func<NemesisEvent, Task>? afterEach = null)
    {
        foreach (var e in schedule)
        {
            await ApplyAsync(e);
            if (afterEach is not null)
                await afterEach(e);
        }
    }

    public async Task ApplyAsync(NemesisEvent e)
    {
        ArgumentNullException.ThrowIfNull(e);
        int? leader = e.Wanted == WantedRole.Planned ? null : await targets.FindLeaderAsync();
        Trade(e, leader);
        string applied = Describe(e) + (e.Wanted == WantedRole.Planned ? "" : leader is { } l ? $", leader was {l}" : ", leader unknown");
        log.Write($"{e} -> {applied}");
        try
        {
            await ApplyToTargetsAsync(e);
        }
        catch (Exception failure)
        {
            log.Write($"#{e.Step} FAILED: {failure.GetType().Name}: {failure.Message}");
            throw new NemesisEventFailedException(e, applied, log.Tail(), failure);
        }
        state.Apply(e);
    }

    private void Trade(NemesisEvent e, int? leader)
    {
        if (leader is not { } clusterLeader || e.Wanted == WantedRole.Planned || state.IsFaulted(e.Node))
            return;
        int leaderInSchedule = Array.IndexOf(clusterNodeOf, clusterLeader);
        if (leaderInSchedule < 0)
            throw new InvalidOperationException($"The cluster names node {clusterLeader} leader; it has {targets.NodeCount} nodes.");
        int tradeWith = e.Wanted switch
        {
            WantedRole.Leader when leaderInSchedule != e.Node && !state.IsFaulted(leaderInSchedule) => leaderInSchedule,
            WantedRole.Follower when leaderInSchedule == e.Node => FirstHealthyOtherThan(e.Node),
            _ => -1,
        };
        if (tradeWith >= 0)
            (clusterNodeOf[e.Node], clusterNodeOf[tradeWith]) = (clusterNodeOf[tradeWith], clusterNodeOf[e.Node]);
    }

    private int FirstHealthyOtherThan(int node)
        => Enumerable.Range(0, state.NodeCount).Where(n => n != node && !state.IsFaulted(n)).DefaultIfEmpty(-1).First();

    private int Cluster(int scheduleNode) => clusterNodeOf[scheduleNode];

    private string Describe(NemesisEvent e) => e.Action switch
    {
        NemesisAction.Heal => "all links",
        NemesisAction.Partition => $"cluster nodes [{string.Join(",", e.Nodes.Select(Cluster))}] cut off",
        NemesisAction.OneWay or NemesisAction.Delay => $"cluster nodes {Cluster(e.Node)} and {Cluster(e.Other)}",
        _ => $"cluster node {Cluster(e.Node)}",
    };

    private Task ApplyToTargetsAsync(NemesisEvent e)
    {
        switch (e.Action)
        {
            case NemesisAction.Kill: return targets.Process(Cluster(e.Node)).KillAsync();
            case NemesisAction.Restart: return targets.Process(Cluster(e.Node)).RestartAsync();
            case NemesisAction.Pause: return targets.Process(Cluster(e.Node)).PauseAsync();
            case NemesisAction.Resume: return targets.Process(Cluster(e.Node)).ResumeAsync();
            case NemesisAction.DiskFull: Disk(e.Node).Fill(); break;
            case NemesisAction.DiskFree: Disk(e.Node).Free(); break;
            case NemesisAction.Partition:
                var minority = e.Nodes.Select(Cluster).ToList();
                var rest = Enumerable.Range(0, targets.NodeCount).Except(minority).ToList();
                targets.Network.Partition([minority, rest]);
                break;
            case NemesisAction.OneWay: targets.Network.OneWay(Cluster(e.Node), Cluster(e.Other)); break;
            case NemesisAction.Delay: targets.Network.SetBoth(Cluster(e.Node), Cluster(e.Other), LinkBehaviour.Delayed(e.Delay)); break;
            case NemesisAction.Heal: targets.Network.Heal(); break;
            case NemesisAction.Remove: return Membership().RemoveAsync(Cluster(e.Node));
            case NemesisAction.Add: return Membership().AddFreshAsync(Cluster(e.Node));
            case NemesisAction.Replace: return Membership().ReplaceAsync(Cluster(e.Node));
            default: throw new ArgumentOutOfRangeException(nameof(e), e.Action, "Not a nemesis action.");
        }
        return Task.CompletedTask;
    }

    private IMembershipNemesis Membership()
        => targets.Membership ?? throw new InvalidOperationException("The schedule changes the membership of a cluster whose membership is fixed (generate with FreshNodes = 0).");

    private IDiskNemesis Disk(int scheduleNode)
        => targets.Disk(Cluster(scheduleNode))
            ?? throw new InvalidOperationException($"The schedule fills cluster node {Cluster(scheduleNode)}'s disk, which has no disk nemesis (generate with Disks = false).");
}
