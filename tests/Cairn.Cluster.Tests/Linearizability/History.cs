namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>
/// A complete client history: every operation once, with its invoke and, when it has one, its completion. Built by
/// a <see cref="HistoryRecorder"/>, by hand in tests, or parsed back from its text form (<see cref="HistoryText"/>).
/// </summary>
public sealed class History
{
    public History(IEnumerable<Operation> operations, long ticksPerSecond)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(ticksPerSecond);
        var list = operations.OrderBy(o => o.Id).ToList();
        for (int i = 0; i < list.Count; i++)
        {
            var op = list[i];
            if (i > 0 && list[i - 1].Id == op.Id)
                throw new ArgumentException($"operation id {op.Id} appears twice", nameof(operations));
            if (op.Completion.Outcome != Outcome.Unknown && op.Completion.At is null)
                throw new ArgumentException($"operation {op.Id} ended {op.Completion.Outcome} without a completion time", nameof(operations));
            if (op.Completion.At < op.InvokedAt)
                throw new ArgumentException($"operation {op.Id} completes at {op.Completion.At}, before its invoke at {op.InvokedAt}", nameof(operations));
        }
        Operations = list;
        TicksPerSecond = ticksPerSecond;
        Origin = list.Count == 0 ? 0 : list.Min(o => o.InvokedAt);
    }

    /// <summary>The operations, ordered by id.</summary>
    public IReadOnlyList<Operation> Operations { get; }

    /// <summary>The unit of every time in the history (<see cref="System.Diagnostics.Stopwatch.Frequency"/> when recorded).</summary>
    public long TicksPerSecond { get; }

    /// <summary>The first invoke: descriptions give times from here.</summary>
    public long Origin { get; }

    public string Describe(Operation op) => op.Describe(Origin, TicksPerSecond);
}
