using System.Globalization;
using System.Text;
using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>
/// The text form of <see cref="IoStats"/> for people: a heading, one aligned line per kind, and the
/// slowest operations with the file and transactions they touched. Invariant culture, so a log
/// read on another machine shows the same numbers; lines end in '\n'.
/// </summary>
public static class IoStatsText
{
    /// <summary>How many of the slowest operations <see cref="FormatSummary(IoStats)"/> lists.</summary>
    public const int DefaultSlowestCount = 5;

    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>A short text table for people: one line per kind, then the <see cref="DefaultSlowestCount"/> slowest operations.</summary>
    /// <param name="stats">The statistics, summarized over one fresh <see cref="IoStats.Snapshot"/>.</param>
    public static string FormatSummary(this IoStats stats) => FormatSummary(stats, DefaultSlowestCount);

    /// <summary>A short text table for people: one line per kind, then the <paramref name="slowestCount"/> slowest operations.</summary>
    /// <param name="stats">The statistics, summarized over one fresh <see cref="IoStats.Snapshot"/>.</param>
    /// <param name="slowestCount">How many of the slowest operations to list; 0 lists none.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="slowestCount"/> is negative.</exception>
    public static string FormatSummary(this IoStats stats, int slowestCount)
    {
        ArgumentNullException.ThrowIfNull(stats);
        ArgumentOutOfRangeException.ThrowIfNegative(slowestCount);
        var operations = stats.Snapshot();
        return Format(stats.Capacity, stats.TotalRecorded, stats.Dropped, IoStatsSummary.From(operations), operations, slowestCount);
    }

    private static string Format(int capacity, long totalRecorded, long dropped, IoStatsSummary summary,
                                ReadOnlySpan<IoOperation> operations, int slowestCount)
    {
        var text = new StringBuilder();
        text.Append(Invariant, $"I/O statistics: the last {operations.Length:N0} of {totalRecorded:N0} operations recorded (capacity {capacity:N0}, {dropped:N0} dropped)\n");

        var kinds = new TextTable("kind", "count", "failed", "bytes", "total ms", "mean us", "p50 us", "p99 us", "max us", "rate");
        foreach (var kind in summary.Kinds)
        {
            kinds.Add(
                IoKindNames.CamelCase(kind.Kind),
                kind.Count.ToString("N0", Invariant),
                kind.Failed.ToString("N0", Invariant),
                IoStatsFormat.Bytes(kind.Bytes),
                kind.TotalDuration.TotalMilliseconds.ToString("F3", Invariant),
                IoStatsFormat.Microseconds(kind.MeanDuration),
                IoStatsFormat.Microseconds(kind.P50Duration),
                IoStatsFormat.Microseconds(kind.P99Duration),
                IoStatsFormat.Microseconds(kind.MaxDuration),
                IoStatsFormat.Bytes((long)Math.Round(kind.BytesPerSecond)) + "/s");
        }
        kinds.AppendTo(text);

        if (slowestCount > 0 && operations.Length > 0)
            AppendSlowest(text, operations, slowestCount);
        return text.ToString();
    }

    private static void AppendSlowest(StringBuilder text, ReadOnlySpan<IoOperation> operations, int slowestCount)
    {
        var slowest = IoStatsFormat.Slowest(operations, slowestCount);
        text.Append(Invariant, $"\nslowest {slowest.Length:N0}:\n");
        var table = new TextTable("seq", "kind", "duration us", "bytes", "transactions", "failed", "started (UTC)", "file");
        foreach (var operation in slowest)
        {
            table.Add(
                operation.Sequence.ToString(Invariant),
                IoKindNames.CamelCase(operation.Kind),
                IoStatsFormat.Microseconds(operation.Duration),
                IoStatsFormat.Bytes(operation.Bytes),
                IoStatsFormat.Transactions(operation),
                operation.Failed ? "yes" : "no",
                operation.StartUtc.ToString("yyyy-MM-dd HH:mm:ss.ffffff", Invariant),
                operation.FilePath);
        }
        table.AppendTo(text, indent: "  ", 1, 4, 5, 7);
    }
}
