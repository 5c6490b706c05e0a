namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>What a generated schedule may do.</summary>
/// <param name="NodeCount">Nodes in the cluster.</param>
/// <param name="MaxFaultedNodes">
/// At most this many nodes faulted at once (<see cref="FaultState.IsFaulted"/>); a majority-keeping campaign gives
/// (NodeCount - 1) / 2, so a quorum is always up once the faults are where the schedule put them.
/// </param>
/// <param name="Events">Events before the closing heal, resumes, disk frees and restarts.</param>
/// <param name="Disks">Whether the nodes' disks can be filled (only where each node has a <see cref="Disks.NodeDisk"/>).</param>
public sealed record NemesisScheduleOptions(int NodeCount, int MaxFaultedNodes, int Events, bool Disks)
{
    /// <summary>Link delays a schedule picks from: from a hiccup to past a typical Raft election timeout.</summary>
    public IReadOnlyList<TimeSpan> Delays { get; init; } = [TimeSpan.FromMilliseconds(5), TimeSpan.FromMilliseconds(50), TimeSpan.FromMilliseconds(200), TimeSpan.FromMilliseconds(1000)];

    /// <summary>
    /// Fresh nodes (new ids) the cluster can add: membership events (remove, add, replace) happen only while one is
    /// left for each removed place; 0, the default, keeps the membership fixed.
    /// </summary>
    public int FreshNodes { get; init; }

    internal void Validate()
    {
        if (NodeCount < 2 || NodeCount > 9)
            throw new ArgumentOutOfRangeException(nameof(NodeCount), NodeCount, "A cluster schedule has 2 to 9 nodes.");
        if (MaxFaultedNodes < 1 || MaxFaultedNodes > NodeCount)
            throw new ArgumentOutOfRangeException(nameof(MaxFaultedNodes), MaxFaultedNodes, $"Between 1 and the {NodeCount} nodes.");
        if (Events < 0)
            throw new ArgumentOutOfRangeException(nameof(Events), Events, "Cannot be negative.");
        if (FreshNodes < 0)
            throw new ArgumentOutOfRangeException(nameof(FreshNodes), FreshNodes, "Cannot be negative.");
        if (Delays.Count == 0 || Delays.Any(d => d <= TimeSpan.Zero))
            throw new ArgumentException("Delays must be positive, and at least one.", nameof(Delays));
    }
}
