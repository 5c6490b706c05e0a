using System.Diagnostics.Metrics;
using DotNext.Net.Cluster;
using DotNext.Net.Cluster.Consensus.Raft;

namespace Cairn.Cluster.Metrics;

/// <summary>
/// One node's measurements: counts its leader changes from the moment its Raft member is made (before it starts, so
/// the first election is counted), and reports its gauges from its status once <see cref="Observe"/> gives the node.
/// </summary>
internal sealed class ClusterNodeMetrics : IDisposable
{
    private readonly ClusterInstruments instruments;
    private readonly RaftCluster raft;
    private readonly KeyValuePair<string, object?> nodeTag;
    private ClusterNode? node;

    public ClusterNodeMetrics(RaftCluster raft, System.Net.EndPoint localEndPoint, IMeterFactory? meterFactory)
    {
        instruments = ClusterInstruments.For(meterFactory);
        this.raft = raft;
        nodeTag = new(ClusterMetrics.NodeTag, EndPointText.Format(localEndPoint));
        raft.LeaderChanged += OnLeaderChanged;
    }

    /// <summary>Reports <paramref name="started"/>'s gauges until disposed.</summary>
    public void Observe(ClusterNode started)
    {
        node = started;
        instruments.Add(this);
    }

    public void Dispose()
    {
        raft.LeaderChanged -= OnLeaderChanged;
        instruments.Remove(this);
    }

    public void ObserveApplyLag(List<Measurement<long>> into)
    {
        if (TryStatus() is { } status)
            into.Add(new(Math.Max(0, status.ApplyLag), nodeTag));
    }

    public void ObserveApplied(List<Measurement<long>> into)
    {
        if (TryStatus() is { } status)
            into.Add(new(status.AppliedIndex, nodeTag));
    }

    private void OnLeaderChanged(ICluster cluster, IClusterMember? leader) => instruments.LeaderChanges.Add(1, nodeTag);

    // A collection racing the node's disposal gets nothing from it rather than an exception in the listener.
    private ClusterNodeStatus? TryStatus()
    {
        try
        {
            return node?.GetStatus();
        }
        catch (ObjectDisposedException)
        {
            return null;
        }
    }
}
