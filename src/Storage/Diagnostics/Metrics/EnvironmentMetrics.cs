using System.Diagnostics;

namespace Cairn.Diagnostics;

/// <summary>
/// One environment's way into the <see cref="CairnInstruments"/>: each measurement tagged with the
/// environment's name. Recording costs one check per instrument when nobody listens (the instrument's
/// <c>Enabled</c>) and allocates nothing when someone does (the tags are built once, boxed once).
/// </summary>
internal sealed class EnvironmentMetrics : IDisposable
{
    private const string DurableMode = "durable";
    private const string MergedMode = "merged";
    private const string LazyMode = "lazy";

    private readonly CairnInstruments _instruments;
    private readonly IEnvironmentGaugeSource _gauges;
    private readonly KeyValuePair<string, object?> _environment;
    private readonly KeyValuePair<string, object?> _durable = new(CairnMetrics.CommitModeTag, DurableMode);
    private readonly KeyValuePair<string, object?> _merged = new(CairnMetrics.CommitModeTag, MergedMode);
    private readonly KeyValuePair<string, object?> _lazy = new(CairnMetrics.CommitModeTag, LazyMode);
    private readonly KeyValuePair<string, object?> _ownWrite = new(CairnMetrics.SharedWriteTag, false);
    private readonly KeyValuePair<string, object?> _sharedWrite = new(CairnMetrics.SharedWriteTag, true);
    private readonly KeyValuePair<string, object?> _ioFailed = new(CairnMetrics.ErrorTypeTag, "IOException");
    private int _disposed;

    public EnvironmentMetrics(CairnInstruments instruments, string environmentName, IEnvironmentGaugeSource gauges)
    {
        _instruments = instruments;
        _gauges = gauges;
        _environment = new(CairnMetrics.EnvironmentTag, environmentName);
        instruments.AddGaugeSource(gauges, _environment);
    }

    public void RecordDurableCommit(long startTimestamp)
    {
        _instruments.Commits.Add(1, _environment, _durable);
        if (_instruments.CommitDuration.Enabled)
            _instruments.CommitDuration.Record(Stopwatch.GetElapsedTime(startTimestamp).TotalSeconds, _environment, _durable);
    }

    /// <summary>A lazy commit: counted, not timed (it returns before any I/O).</summary>
    public void RecordLazyCommit() => _instruments.Commits.Add(1, _environment, _lazy);

    public void RecordMergedTransaction(int operations)
    {
        _instruments.Commits.Add(1, _environment, _merged);
        _instruments.MergerBatchSize.Record(operations, _environment);
    }

    public void RecordQueueWait(long stopwatchTicks)
    {
        if (_instruments.MergerQueueWait.Enabled)
            _instruments.MergerQueueWait.Record(Seconds(stopwatchTicks), _environment);
    }

    /// <summary>One operation <see cref="IoStats"/> recorded: a journal write, a flush or a sync.</summary>
    public void RecordIo(IoOperationKind kind, long durationTicks, long bytes, bool failed, int environmentCount)
    {
        switch (kind)
        {
            case IoOperationKind.JournalWrite:
                var shared = environmentCount > 1 ? _sharedWrite : _ownWrite;
                if (failed)
                {
                    _instruments.JournalWriteDuration.Record(Seconds(durationTicks), _environment, shared, _ioFailed);
                    return;
                }
                _instruments.JournalWriteDuration.Record(Seconds(durationTicks), _environment, shared);
                _instruments.JournalWriteSize.Record(bytes, _environment, shared);
                break;
            case IoOperationKind.DataFlush:
                if (failed)
                {
                    _instruments.FlushDuration.Record(Seconds(durationTicks), _environment, _ioFailed);
                    return;
                }
                _instruments.FlushDuration.Record(Seconds(durationTicks), _environment);
                _instruments.FlushSize.Record(bytes, _environment);
                break;
            case IoOperationKind.DataSync:
                if (failed)
                    _instruments.SyncDuration.Record(Seconds(durationTicks), _environment, _ioFailed);
                else
                    _instruments.SyncDuration.Record(Seconds(durationTicks), _environment);
                break;
        }
    }

    public void RecordOpened(TimeSpan duration, long transactionsReplayed)
    {
        _instruments.RecoveryDuration.Record(duration.TotalSeconds, _environment);
        _instruments.RecoveredTransactions.Add(transactionsReplayed, _environment);
    }

    /// <summary>Stops reporting the environment's gauges; recording after this is harmless (a closing flusher's last sync).</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
            _instruments.RemoveGaugeSource(_gauges);
    }

    private static double Seconds(long stopwatchTicks) => (double)stopwatchTicks / Stopwatch.Frequency;
}
