using System.Diagnostics.Tracing;

namespace Cairn.Bench.Durability.Allocations;

/// <summary>
/// Counts the runtime's <c>GCAllocationTick</c> events by type while enabled: the runtime raises one each time about
/// 100 KB have been allocated, naming the type of the object that crossed the mark and the bytes since the last one,
/// so over many ticks each type's share of the bytes is its share of the ticks' amounts. A sample, not a count: a type
/// needs tens of ticks before its figure means much (<see cref="Ticks"/> says how many it had).
/// </summary>
internal sealed class AllocationTickListener : EventListener
{
    private const string RuntimeSource = "Microsoft-Windows-DotNETRuntime";
    private const long GcKeyword = 0x1;
    // Written by the thread that raises the event (any allocating thread); read after Disable.
    private readonly Lock _gate = new();
    private readonly Dictionary<string, (long Bytes, int Ticks)> _byType = [];
    private volatile bool _counting;

    public void Start()
    {
        lock (_gate)
            _byType.Clear();
        _counting = true;
    }

    public void Stop() => _counting = false;

    /// <summary>Sampled bytes and ticks per type, most bytes first.</summary>
    public IReadOnlyList<(string Type, long Bytes, int Ticks)> Ticks()
    {
        lock (_gate)
            return _byType.Select(p => (p.Key, p.Value.Bytes, p.Value.Ticks)).OrderByDescending(t => t.Bytes).ToArray();
    }

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == RuntimeSource)
            EnableEvents(eventSource, EventLevel.Verbose, (EventKeywords)GcKeyword);
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        if (!_counting || e.EventName is null || !e.EventName.StartsWith("GCAllocationTick", StringComparison.Ordinal) || e.PayloadNames is null)
            return;
        int typeAt = e.PayloadNames.IndexOf("TypeName");
        int amountAt = e.PayloadNames.IndexOf("AllocationAmount64");
        if (amountAt < 0)
            amountAt = e.PayloadNames.IndexOf("AllocationAmount");
        if (typeAt < 0 || amountAt < 0)
            return;
        string type = e.Payload![typeAt] as string ?? "?";
        long amount = Convert.ToInt64(e.Payload[amountAt], System.Globalization.CultureInfo.InvariantCulture);
        lock (_gate)
        {
            _byType.TryGetValue(type, out var sum);
            _byType[type] = (sum.Bytes + amount, sum.Ticks + 1);
        }
    }
}
