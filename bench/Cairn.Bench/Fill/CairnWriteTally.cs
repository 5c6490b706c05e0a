using System.Diagnostics.Metrics;
using Cairn.Diagnostics;

namespace Cairn.Bench.Fill;

/// <summary>
/// What Cairn itself wrote during a fill, from its own metrics (<see cref="CairnMetrics"/>): bytes of journal
/// writes (O_DIRECT, straight to the device), bytes the flusher copied into the data file (buffered: the device
/// takes them at the next sync or kernel write-back, pages rewritten in between once) and the number of
/// data-file syncs. Set beside the device's own count, it says where the device bytes come from.
/// </summary>
public sealed class CairnWriteTally : IDisposable
{
    private readonly MeterListener _listener = new();
    private long _journalBytes;
    private long _flushedBytes;
    private long _flushes;
    private long _syncs;

    public CairnWriteTally()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == CairnMetrics.MeterName
                && instrument.Name is CairnMetrics.JournalWriteSize or CairnMetrics.FlushSize or CairnMetrics.SyncDuration)
                listener.EnableMeasurementEvents(instrument);
        };
        _listener.SetMeasurementEventCallback<long>((instrument, bytes, _, _) =>
        {
            if (instrument.Name == CairnMetrics.JournalWriteSize)
                Interlocked.Add(ref _journalBytes, bytes);
            else
            {
                Interlocked.Add(ref _flushedBytes, bytes);
                Interlocked.Increment(ref _flushes);
            }
        });
        _listener.SetMeasurementEventCallback<double>((_, _, _, _) => Interlocked.Increment(ref _syncs));
        _listener.Start();
    }

    public long JournalBytes => Interlocked.Read(ref _journalBytes);

    public long FlushedBytes => Interlocked.Read(ref _flushedBytes);

    /// <summary>Flushes to the data file (each step of a journal-by-journal flush counts).</summary>
    public long Flushes => Interlocked.Read(ref _flushes);

    public long Syncs => Interlocked.Read(ref _syncs);

    public void Dispose() => _listener.Dispose();
}
