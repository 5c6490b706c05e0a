namespace Cairn.Cluster.Tests.Nemesis.Schedule;

public enum NemesisAction
{
    Kill,
    Restart,
    Pause,
    Resume,

    /// <summary><see cref="NemesisEvent.Nodes"/> (a minority) cut off from the rest, both ways.</summary>
    Partition,

    /// <summary>What <see cref="NemesisEvent.Node"/> sends <see cref="NemesisEvent.Other"/> is dropped; the other way passes.</summary>
    OneWay,

    /// <summary>Both directions between <see cref="NemesisEvent.Node"/> and <see cref="NemesisEvent.Other"/> held for <see cref="NemesisEvent.Delay"/>.</summary>
    Delay,

    /// <summary>Every link passes again.</summary>
    Heal,
    DiskFull,
    DiskFree,

    /// <summary>The live member <see cref="NemesisEvent.Node"/> removed from the cluster; its place stays empty until an <see cref="Add"/>.</summary>
    Remove,

    /// <summary>A fresh node (new id, new folder) added in the empty place <see cref="NemesisEvent.Node"/>.</summary>
    Add,

    /// <summary>The dead (killed) member <see cref="NemesisEvent.Node"/> removed and a fresh node added in its place.</summary>
    Replace,
}

/// <summary>Which node a fault wants, known only when it is applied: the schedule names a planned node, healthy, that the runner may trade for one with the wanted role.</summary>
public enum WantedRole
{
    Planned,
    Leader,
    Follower,
}

/// <summary>
/// One step of a schedule. Node numbers are the schedule's: the runner maps them to the cluster's, trading two
/// healthy nodes when a fault wants the leader or a follower (<see cref="NemesisRunner"/>).
/// </summary>
public sealed record NemesisEvent(int Step, NemesisAction Action, int Node = -1, int Other = -1, WantedRole Wanted = WantedRole.Planned)
{
    /// <summary>For <see cref="NemesisAction.Partition"/>: the minority cut off.</summary>
    public IReadOnlyList<int> Nodes { get; init; } = [];

    public TimeSpan Delay { get; init; }

    public override string ToString() => Action switch
    {
        NemesisAction.Partition => $"#{Step} partition [{string.Join(",", Nodes)}] from the rest{Role}",
        NemesisAction.OneWay => $"#{Step} one-way {Node}->{Other} dropped",
        NemesisAction.Delay => $"#{Step} delay {Node}<->{Other} {Delay.TotalMilliseconds} ms",
        NemesisAction.Heal => $"#{Step} heal",
        _ => $"#{Step} {Action.ToString().ToLowerInvariant()} {Node}{Role}",
    };

    private string Role => Wanted == WantedRole.Planned ? "" : $" (wants the {Wanted.ToString().ToLowerInvariant()})";
}
