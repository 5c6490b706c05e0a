using Cairn.Diagnostics;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    private EnvironmentMetrics _metrics = null!;

    /// <summary>Measures this environment in the meter its options name (docs/metrics.md); set up once the components exist.</summary>
    private void StartMetrics()
    {
        string name = _options.Name ?? Path.GetFullPath(_options.DirectoryPath);
        _metrics = new EnvironmentMetrics(CairnInstruments.For(_options.MeterFactory), name, new EnvironmentGauges(this));
        IoStats.Metrics = _metrics;
        _committer.Metrics = _metrics;
        _mergedWrites.Statistics.Metrics = _metrics;
    }

    /// <summary>Operations waiting in the merger's queue (0 before the first <c>WriteAsync</c>), for the gauges.</summary>
    internal long MergerQueueDepth => _mergedWrites.QueueDepth;
}
