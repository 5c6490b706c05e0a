namespace Cairn.Cluster;

/// <summary>
/// The names of a cluster node's metrics. They are on the engine's meter (<see cref="Diagnostics.CairnMetrics.MeterName"/>,
/// <c>Cairn</c>), from the node's <see cref="StorageOptions.MeterFactory"/> (<see cref="ClusterNodeOptions.Storage"/>)
/// or the process's meter without one, so one <c>AddMeter("Cairn")</c> takes the engine's and the cluster's; every
/// measurement carries <see cref="NodeTag"/>. The list with descriptions: docs/metrics.md.
/// </summary>
public static class ClusterMetrics
{
    /// <summary>The tag naming the node a measurement is from: its Raft address (<c>127.0.0.1:7001</c>).</summary>
    public const string NodeTag = "cairn.cluster.node";

    /// <summary>Counter, <c>{change}</c>: times this node saw its leader change (to another node, to itself, or to none while an election runs).</summary>
    public const string LeaderChanges = "cairn.cluster.leader.changes";

    /// <summary>ObservableGauge, <c>{entry}</c>: committed entries this node has not applied yet (commit index − applied index).</summary>
    public const string ApplyLag = "cairn.cluster.apply.lag";

    /// <summary>
    /// ObservableCounter, <c>{entry}</c>: the last log index this node's environment has applied; its rate is the
    /// apply rate. It starts where the environment stood when the node started.
    /// </summary>
    public const string EntriesApplied = "cairn.cluster.entries.applied";
}
