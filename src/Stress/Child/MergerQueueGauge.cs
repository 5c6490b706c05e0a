using System.Diagnostics.Metrics;
using Cairn.Diagnostics;

namespace Cairn.Stress.Child;

/// <summary>
/// The merger queue depth of every environment in this process, read on demand from the engine's own gauge
/// (<see cref="CairnMetrics.MergerQueueDepth"/>, docs/metrics.md): the public way to see it.
/// </summary>
internal sealed class MergerQueueGauge : IDisposable
{
    private readonly MeterListener _listener = new();
    private long _sum;

    public MergerQueueGauge()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == CairnMetrics.MeterName && instrument.Name == CairnMetrics.MergerQueueDepth)
                listener.EnableMeasurementEvents(instrument);
        };
        _listener.SetMeasurementEventCallback<long>((_, value, _, _) => _sum += value);
        _listener.Start();
    }

    /// <summary>Operations queued now, summed over the environments (each reports under its own tag).</summary>
    public long Read()
    {
        lock (_listener)
        {
            _sum = 0;
            _listener.RecordObservableInstruments();
            return _sum;
        }
    }

    public void Dispose() => _listener.Dispose();
}
