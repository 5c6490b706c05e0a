using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using Cairn.Diagnostics;

namespace Cairn.Cluster.Metrics;

/// <summary>
/// The cluster's instruments on one meter named <see cref="CairnMetrics.MeterName"/>: one set for the process (nodes
/// without an <see cref="IMeterFactory"/>) and one per factory, created once each (a second set would make a listener
/// see each measurement twice). The meter is asked with the engine's name and version, so a factory hands back the
/// very meter the engine reports to.
/// </summary>
internal sealed class ClusterInstruments
{
    private static readonly Lazy<ClusterInstruments> Process = new(() => new ClusterInstruments(new Meter(MeterOptions())));
    private static readonly ConditionalWeakTable<IMeterFactory, ClusterInstruments> ByFactory = [];

    private readonly Lock gate = new(); // protects nodes
    private readonly List<ClusterNodeMetrics> nodes = [];

    private ClusterInstruments(Meter meter)
    {
        LeaderChanges = meter.CreateCounter<long>(ClusterMetrics.LeaderChanges, "{change}", "Times this node saw its leader change.");
        meter.CreateObservableGauge(ClusterMetrics.ApplyLag, () => Observe(static (node, into) => node.ObserveApplyLag(into)), "{entry}",
            "Committed entries this node has not applied yet.");
        meter.CreateObservableCounter(ClusterMetrics.EntriesApplied, () => Observe(static (node, into) => node.ObserveApplied(into)), "{entry}",
            "The last log index this node has applied.");
    }

    public Counter<long> LeaderChanges { get; }

    public static ClusterInstruments For(IMeterFactory? factory) =>
        factory is null ? Process.Value : ByFactory.GetValue(factory, static f => new ClusterInstruments(f.Create(MeterOptions())));

    public void Add(ClusterNodeMetrics node)
    {
        lock (gate)
            nodes.Add(node);
    }

    public void Remove(ClusterNodeMetrics node)
    {
        lock (gate)
            nodes.Remove(node);
    }

    // The engine's meter options exactly (CairnInstruments), so that IMeterFactory returns the same meter.
    private static MeterOptions MeterOptions() =>
        new(CairnMetrics.MeterName) { Version = typeof(StorageEnvironment).Assembly.GetName().Version?.ToString() };

    private List<Measurement<long>> Observe(Action<ClusterNodeMetrics, List<Measurement<long>>> read)
    {
        var measurements = new List<Measurement<long>>();
        lock (gate)
            foreach (var node in nodes)
                read(node, measurements);
        return measurements;
    }
}
