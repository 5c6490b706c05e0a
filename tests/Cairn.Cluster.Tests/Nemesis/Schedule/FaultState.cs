namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>
/// Which nodes a schedule has faulted after each event, in the schedule's node numbers: the generator keeps to the
/// fault limit with it, and the runner knows from it which nodes are healthy enough to trade.
/// </summary>
internal sealed class FaultState(int nodeCount)
{
    private readonly bool[] killed = new bool[nodeCount];
    private readonly bool[] paused = new bool[nodeCount];
    private readonly bool[] diskFull = new bool[nodeCount];
    private readonly bool[] removed = new bool[nodeCount];
    private readonly HashSet<int> cutOff = [];

    public int NodeCount { get; } = nodeCount;

    /// <summary>A partition, one-way or delay is in force (one at a time; a heal ends it).</summary>
    public bool NetworkFaulted { get; private set; }

    public bool IsKilled(int node) => killed[node];

    public bool IsPaused(int node) => paused[node];

    public bool IsDiskFull(int node) => diskFull[node];

    /// <summary>The node's member was removed and no fresh one added in its place yet.</summary>
    public bool IsRemoved(int node) => removed[node];

    public bool AnyRemoved => removed.Contains(true);

    /// <summary>Fresh nodes added so far (by <see cref="NemesisAction.Add"/> or <see cref="NemesisAction.Replace"/>).</summary>
    public int FreshUsed { get; private set; }

    /// <summary>Fresh nodes used or owed: each removed place will take one.</summary>
    public int FreshCommitted => FreshUsed + removed.Count(r => r);

    /// <summary>
    /// A node counts as faulted when its process is down or stopped, its disk is full, its place has no member, or the
    /// network fault in force is on its side: a partition's minority, a one-way link's sender, a delayed pair's first node.
    /// </summary>
    public bool IsFaulted(int node) => killed[node] || paused[node] || diskFull[node] || removed[node] || cutOff.Contains(node);

    public int FaultedCount => Enumerable.Range(0, NodeCount).Count(IsFaulted);

    public bool IsHealed => FaultedCount == 0 && !NetworkFaulted;

    public void Apply(NemesisEvent e)
    {
        switch (e.Action)
        {
            case NemesisAction.Kill: killed[e.Node] = true; paused[e.Node] = false; break;
            case NemesisAction.Restart: killed[e.Node] = false; break;
            case NemesisAction.Pause: paused[e.Node] = true; break;
            case NemesisAction.Resume: paused[e.Node] = false; break;
            case NemesisAction.DiskFull: diskFull[e.Node] = true; break;
            case NemesisAction.DiskFree: diskFull[e.Node] = false; break;
            case NemesisAction.Partition: CutOff(e.Nodes); break;
            case NemesisAction.OneWay or NemesisAction.Delay: CutOff([e.Node]); break;
            case NemesisAction.Heal: cutOff.Clear(); NetworkFaulted = false; break;
            case NemesisAction.Remove: removed[e.Node] = true; break;
            case NemesisAction.Add: removed[e.Node] = false; FreshUsed++; break;
            case NemesisAction.Replace: killed[e.Node] = false; FreshUsed++; break;
            default: throw new ArgumentOutOfRangeException(nameof(e), e.Action, "Not a nemesis action.");
        }
    }

    private void CutOff(IEnumerable<int> nodes)
    {
        cutOff.Clear();
        cutOff.UnionWith(nodes);
        NetworkFaulted = true;
    }
}
