namespace Cairn.Diagnostics;

/// <summary>Per-kind statistics over one snapshot of an <see cref="IoStats"/> ring.</summary>
public sealed class IoStatsSummary
{
    private readonly IoKindSummary[] _byKind;

    private IoStatsSummary(IoKindSummary[] byKind, int operationCount)
    {
        _byKind = byKind;
        OperationCount = operationCount;
    }

    /// <summary>How many operations were summarized.</summary>
    public int OperationCount { get; }

    /// <summary>Journal writes.</summary>
    public IoKindSummary JournalWrite => this[IoOperationKind.JournalWrite];

    /// <summary>Data-file flushes.</summary>
    public IoKindSummary DataFlush => this[IoOperationKind.DataFlush];

    /// <summary>Data-file syncs.</summary>
    public IoKindSummary DataSync => this[IoOperationKind.DataSync];

    /// <summary>Every kind, in the order <see cref="IoOperationKind"/> declares them, including kinds with no operations.</summary>
    public IReadOnlyList<IoKindSummary> Kinds => _byKind;

    /// <summary>The summary of one kind.</summary>
    public IoKindSummary this[IoOperationKind kind]
    {
        get
        {
            if (!IoOperationKindNames.IsDefined(kind))
                throw new ArgumentOutOfRangeException(nameof(kind), kind, "Not an I/O operation kind.");
            return _byKind[(int)kind - (int)IoOperationKind.JournalWrite];
        }
    }

    /// <summary>Summarizes any set of operations, such as one returned by <see cref="IoStats.Snapshot"/>.</summary>
    public static IoStatsSummary From(ReadOnlySpan<IoOperation> operations)
    {
        var byKind = new IoKindSummary[IoOperationKindNames.All.Length];
        foreach (var kind in IoOperationKindNames.All)
            byKind[(int)kind - (int)IoOperationKind.JournalWrite] = Summarize(kind, operations);
        return new IoStatsSummary(byKind, operations.Length);
    }

    private static IoKindSummary Summarize(IoOperationKind kind, ReadOnlySpan<IoOperation> operations)
    {
        var durations = new List<long>();
        int failed = 0;
        long bytes = 0;
        long totalTicks = 0;
        foreach (ref readonly var operation in operations)
        {
            if (operation.Kind != kind)
                continue;
            durations.Add(operation.Duration.Ticks);
            totalTicks += operation.Duration.Ticks;
            bytes += operation.Bytes;
            if (operation.Failed)
                failed++;
        }
        int count = durations.Count;
        if (count == 0)
            return IoKindSummary.None(kind);

        durations.Sort();
        var total = new TimeSpan(totalTicks);
        return new IoKindSummary
        {
            Kind = kind, Count = count, Failed = failed, Bytes = bytes, TotalDuration = total,
            MeanDuration = new TimeSpan(totalTicks / count),
            P50Duration = new TimeSpan(NearestRank(durations, 50)),
            P99Duration = new TimeSpan(NearestRank(durations, 99)),
            MaxDuration = new TimeSpan(durations[count - 1]),
            BytesPerSecond = totalTicks == 0 ? 0 : bytes / total.TotalSeconds,
        };
    }

    // Nearest rank rather than interpolation: the result is always a duration that really occurred,
    // and the 99th percentile of a few operations is their maximum, not a blend.
    private static long NearestRank(List<long> sorted, int percent)
    {
        int rank = (int)(((long)percent * sorted.Count + 99) / 100); // ⌈percent·n/100⌉, from 1
        return sorted[rank - 1];
    }
}
