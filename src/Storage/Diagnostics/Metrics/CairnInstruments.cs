using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;

namespace Cairn.Diagnostics;

/// <summary>
/// The instruments of one <see cref="Meter"/> named <see cref="CairnMetrics.MeterName"/>, shared by every
/// environment that reports to it: one set for the process (environments opened without an
/// <see cref="IMeterFactory"/>) and one per factory (a host's dependency-injection container). Instruments
/// are created once per meter: a second set would make a listener see each measurement's name twice.
/// </summary>
internal sealed class CairnInstruments
{
    private static readonly Lazy<CairnInstruments> s_process = new(() => new CairnInstruments(new Meter(MeterOptions())));
    private static readonly ConditionalWeakTable<IMeterFactory, CairnInstruments> s_byFactory = [];

    // Guards the environments the observable gauges report: added at open, removed at close, read at collection.
    private readonly Lock _sourcesGate = new();
    private readonly List<(IEnvironmentGaugeSource Source, KeyValuePair<string, object?> Tag)> _sources = [];

    private CairnInstruments(Meter meter)
    {
        Meter = meter;
        Commits = meter.CreateCounter<long>(CairnMetrics.Commits, "{transaction}", "Transactions committed.");
        CommitDuration = meter.CreateHistogram<double>(CairnMetrics.CommitDuration, "s", "Durable commits, from Commit() until it returned.");
        JournalWriteDuration = meter.CreateHistogram<double>(CairnMetrics.JournalWriteDuration, "s", "Journal writes, from submission until durable.");
        JournalWriteSize = meter.CreateHistogram<long>(CairnMetrics.JournalWriteSize, "By", "Bytes per journal write.");
        FlushDuration = meter.CreateHistogram<double>(CairnMetrics.FlushDuration, "s", "Data-file flushes.");
        FlushSize = meter.CreateHistogram<long>(CairnMetrics.FlushSize, "By", "Bytes per data-file flush.");
        SyncDuration = meter.CreateHistogram<double>(CairnMetrics.SyncDuration, "s", "Data-file syncs.");
        RecoveryDuration = meter.CreateHistogram<double>(CairnMetrics.RecoveryDuration, "s", "Opening an environment, recovery included.");
        RecoveredTransactions = meter.CreateCounter<long>(CairnMetrics.RecoveredTransactions, "{transaction}", "Transactions replayed from the journals while opening.");
        MergerBatchSize = meter.CreateHistogram<int>(CairnMetrics.MergerBatchSize, "{operation}", "Operations per transaction of the merger.");
        MergerQueueWait = meter.CreateHistogram<double>(CairnMetrics.MergerQueueWait, "s", "Time a merged operation waited in the queue.");
        meter.CreateObservableGauge(CairnMetrics.MergerQueueDepth, () => Observe(static s => s.MergerQueueDepth), "{operation}", "Operations waiting in the merger's queue.");
        meter.CreateObservableGauge(CairnMetrics.ScratchUsage, () => Observe(static s => s.ScratchBytesInUse), "By", "Scratch memory in use.");
        meter.CreateObservableGauge(CairnMetrics.JournalDiskUsage, () => Observe(static s => s.JournalBytesOnDisk), "By", "Journal files on disk that recovery may need.");
        meter.CreateObservableGauge(CairnMetrics.OldestReaderAge, () => Observe(static s => s.OldestReaderAgeSeconds), "s", "Age of the oldest open read transaction.");
    }

    public Meter Meter { get; }
    public Counter<long> Commits { get; }
    public Histogram<double> CommitDuration { get; }
    public Histogram<double> JournalWriteDuration { get; }
    public Histogram<long> JournalWriteSize { get; }
    public Histogram<double> FlushDuration { get; }
    public Histogram<long> FlushSize { get; }
    public Histogram<double> SyncDuration { get; }
    public Histogram<double> RecoveryDuration { get; }
    public Counter<long> RecoveredTransactions { get; }
    public Histogram<int> MergerBatchSize { get; }
    public Histogram<double> MergerQueueWait { get; }

    /// <summary>The instruments of <paramref name="factory"/>'s meter, or the process's own when it is null.</summary>
    public static CairnInstruments For(IMeterFactory? factory) =>
        factory is null ? s_process.Value : s_byFactory.GetValue(factory, static f => new CairnInstruments(f.Create(MeterOptions())));

    /// <summary>Reports <paramref name="source"/> in the observable gauges until <see cref="RemoveGaugeSource"/>.</summary>
    public void AddGaugeSource(IEnvironmentGaugeSource source, KeyValuePair<string, object?> environmentTag)
    {
        lock (_sourcesGate)
            _sources.Add((source, environmentTag));
    }

    public void RemoveGaugeSource(IEnvironmentGaugeSource source)
    {
        lock (_sourcesGate)
            _sources.RemoveAll(s => ReferenceEquals(s.Source, source));
    }

    private static MeterOptions MeterOptions() =>
        new(CairnMetrics.MeterName) { Version = typeof(CairnInstruments).Assembly.GetName().Version?.ToString() };

    private List<Measurement<T>> Observe<T>(Func<IEnvironmentGaugeSource, T> read) where T : struct
    {
        lock (_sourcesGate)
        {
            var measurements = new List<Measurement<T>>(_sources.Count);
            foreach (var (source, tag) in _sources)
                measurements.Add(new Measurement<T>(read(source), tag));
            return measurements;
        }
    }
}
