using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using Cairn.Diagnostics;
using Cairn.Tests.Support;
using Microsoft.Extensions.DependencyInjection;

namespace Cairn.Cluster.Tests.Usable;

/// <summary>A node's metrics on the engine's <c>Cairn</c> meter, seen through a <see cref="MeterListener"/>, only this test's node's (tests run in parallel).</summary>
public sealed class MetricsTests
{
    [Fact]
    public async Task A_node_counts_its_leader_changes_and_reports_applied_entries_and_apply_lag_until_it_stops()
    {
        using var directory = new TestDirectory("cluster-metrics");
        using var measurements = new ClusterMeasurements(meterFactory: null);
        var node = await SingleNode.StartAsync(directory);
        var tag = node.LocalEndPoint.ToString()!;
        long last = 0;
        try
        {
            for (var i = 1; i <= 3; i++)
                last = (await node.WriteAsync(SingleNode.Put(i, "metrics", [(byte)i], [1]))).LogIndex;

            Assert.True(measurements.Sum(ClusterMetrics.LeaderChanges, tag) >= 1, "the node's own election was not counted");
            measurements.Collect();
            Assert.True(measurements.Last(ClusterMetrics.EntriesApplied, tag) >= last);
            Assert.True(measurements.Last(ClusterMetrics.ApplyLag, tag) >= 0);
        }
        finally
        {
            await node.DisposeAsync();
        }

        measurements.Clear();
        measurements.Collect();
        Assert.False(measurements.Has(ClusterMetrics.EntriesApplied, tag), "a stopped node is still observed");
    }

    [Fact]
    public async Task A_node_with_a_meter_factory_reports_on_the_same_meter_as_its_environment()
    {
        using var directory = new TestDirectory("cluster-metrics-factory");
        await using var services = new ServiceCollection().AddMetrics().BuildServiceProvider();
        var factory = services.GetRequiredService<IMeterFactory>();
        using var measurements = new ClusterMeasurements(factory);
        await using var node = await SingleNode.StartAsync(directory, new StorageOptions("ignored") { MeterFactory = factory });
        await node.WriteAsync(SingleNode.Put(1, "metrics", [1], [1]));
        measurements.Collect();
        var tag = node.LocalEndPoint.ToString()!;
        Assert.True(measurements.Last(ClusterMetrics.EntriesApplied, tag) >= 1);
        // The engine's commits went to the same Meter object: one meter per factory, whichever assembly asks.
        Assert.Same(measurements.MeterOf(ClusterMetrics.EntriesApplied), measurements.MeterOf(CairnMetrics.Commits));
    }

    /// <summary>Listens to the <c>Cairn</c> meter (of one factory, or any) and keeps every long measurement with its node tag.</summary>
    private sealed class ClusterMeasurements : IDisposable
    {
        private readonly MeterListener listener = new();
        private readonly ConcurrentQueue<(string Instrument, string? Node, long Value)> values = new();
        private readonly ConcurrentDictionary<string, Meter> meters = new();

        public ClusterMeasurements(IMeterFactory? meterFactory)
        {
            var wanted = meterFactory?.Create(new MeterOptions(CairnMetrics.MeterName) { Version = typeof(StorageEnvironment).Assembly.GetName().Version?.ToString() });
            listener.InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == CairnMetrics.MeterName && (wanted is null || ReferenceEquals(instrument.Meter, wanted)))
                {
                    meters[instrument.Name] = instrument.Meter;
                    l.EnableMeasurementEvents(instrument);
                }
            };
            listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
            {
                string? node = null;
                foreach (var tag in tags)
                    if (tag.Key == ClusterMetrics.NodeTag)
                        node = tag.Value as string;
                values.Enqueue((instrument.Name, node, value));
            });
            listener.Start();
        }

        public void Collect() => listener.RecordObservableInstruments();

        public void Clear() => values.Clear();

        public long Sum(string instrument, string node) => Of(instrument, node).Sum();

        public long Last(string instrument, string node) => Of(instrument, node).DefaultIfEmpty(-1).Last();

        public bool Has(string instrument, string node) => Of(instrument, node).Any();

        public Meter MeterOf(string instrument) => meters[instrument];

        public void Dispose() => listener.Dispose();

        private IEnumerable<long> Of(string instrument, string node)
            => values.Where(v => v.Instrument == instrument && v.Node == node).Select(v => v.Value);
    }
}
