using System.Diagnostics.Tracing;
using BenchmarkDotNet.Engines;

namespace Cairn.Bench.Durability.Concurrent;

/// <summary>
/// Tells a benchmark, inside the benchmark process, whether BenchmarkDotNet is in its measured stage
/// (workload, actual iterations), so that figures the benchmark records itself (latency percentiles,
/// log writes) cover exactly the iterations behind the reported mean: not the jitting and warm-up
/// invocations before them, nor the extra invocation the engine runs afterwards to count
/// allocations. It listens to BenchmarkDotNet's own <see cref="EngineEventSource"/>, whose stage
/// events the engine raises before starting and after stopping its clock.
/// </summary>
public sealed class MeasuredStageListener : EventListener
{
    private volatile bool _inWorkloadActual;
    private int _actualStages;

    /// <summary>True between the engine's WorkloadActual start and stop events.</summary>
    public bool InWorkloadActual => _inWorkloadActual;

    /// <summary>How many WorkloadActual stages began (1 per run; 0 means the events never came).</summary>
    public int ActualStages => Volatile.Read(ref _actualStages);

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == EngineEventSource.SourceName)
            EnableEvents(eventSource, EventLevel.Verbose, EventKeywords.All);
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.EventSource.Name != EngineEventSource.SourceName)
            return;
        if (eventData.EventId == EngineEventSource.WorkloadActualStartEventId)
        {
            Interlocked.Increment(ref _actualStages);
            _inWorkloadActual = true;
        }
        else if (eventData.EventId == EngineEventSource.WorkloadActualStopEventId)
        {
            _inWorkloadActual = false;
        }
    }
}
