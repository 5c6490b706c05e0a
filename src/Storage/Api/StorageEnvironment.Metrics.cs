using Cairn.Diagnostics;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    private EnvironmentMetrics _metrics = null!;

    /// <summary>Measures this environment in the meter its options name (docs/metrics.md); set up once the components exist.</summary>
    private void StartMetrics()
    {
        string name = _options.Name ?? Path.GetFullPath(_options.DirectoryPath);
        _metrics = new EnvironmentMetrics(CairnInstruments.For(_options.MeterFactory), name, new Gauges(this));
        IoStats.Metrics = _metrics;
        _committer.Metrics = _metrics;
        _mergerStatistics.Metrics = _metrics;
    }

    /// <summary>What the observable gauges read; private so the gauge interface stays out of the public surface.</summary>
    private sealed class Gauges(StorageEnvironment environment) : IEnvironmentGaugeSource
    {
        public long ScratchBytesInUse => environment.ScratchBytesInUse;

        public long MergerQueueDepth => Volatile.Read(ref environment._merger)?.Queue.Depth ?? 0;

        public long JournalBytesOnDisk => environment.JournalBytesOnDisk;

        public double OldestReaderAgeSeconds =>
            environment._states.Readers.OldestReadStartedAt() is long started
                ? Math.Max(0, System.Environment.TickCount64 - started) / 1000.0
                : 0;
    }
}
