using System.Globalization;
using System.Text;

namespace Cairn.Diagnostics;

/// <summary>
/// The text form of <see cref="IoStats"/> for people: a heading, one aligned line per kind, and the
/// slowest operations with the file and transactions they touched. Invariant culture, so a log
/// read on another machine shows the same numbers; lines end in '\n'.
/// </summary>
internal static class IoStatsText
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    public static string Format(int capacity, long totalRecorded, long dropped, IoStatsSummary summary,
                                ReadOnlySpan<IoOperation> operations, int slowestCount)
    {
        var text = new StringBuilder();
        text.Append(Invariant, $"I/O statistics: the last {operations.Length:N0} of {totalRecorded:N0} operations recorded (capacity {capacity:N0}, {dropped:N0} dropped)\n");

        var kinds = new TextTable("kind", "count", "failed", "bytes", "total ms", "mean us", "p50 us", "p99 us", "max us", "rate");
        foreach (var kind in summary.Kinds)
        {
            kinds.Add(
                IoOperationKindNames.CamelCase(kind.Kind),
                kind.Count.ToString("N0", Invariant),
                kind.Failed.ToString("N0", Invariant),
                Bytes(kind.Bytes),
                kind.TotalDuration.TotalMilliseconds.ToString("F3", Invariant),
                Microseconds(kind.MeanDuration),
                Microseconds(kind.P50Duration),
                Microseconds(kind.P99Duration),
                Microseconds(kind.MaxDuration),
                Bytes((long)Math.Round(kind.BytesPerSecond)) + "/s");
        }
        kinds.AppendTo(text);

        if (slowestCount > 0 && operations.Length > 0)
            AppendSlowest(text, operations, slowestCount);
        return text.ToString();
    }

    private static void AppendSlowest(StringBuilder text, ReadOnlySpan<IoOperation> operations, int slowestCount)
    {
        var slowest = operations.ToArray();
        // Longest first; among equals the earlier one, so the listing is deterministic.
        Array.Sort(slowest, (a, b) => a.Duration != b.Duration ? b.Duration.CompareTo(a.Duration) : a.Sequence.CompareTo(b.Sequence));
        int shown = Math.Min(slowestCount, slowest.Length);

        text.Append(Invariant, $"\nslowest {shown:N0}:\n");
        var table = new TextTable("seq", "kind", "duration us", "bytes", "transactions", "failed", "started (UTC)", "file");
        foreach (var operation in slowest.AsSpan(0, shown))
        {
            table.Add(
                operation.Sequence.ToString(Invariant),
                IoOperationKindNames.CamelCase(operation.Kind),
                Microseconds(operation.Duration),
                Bytes(operation.Bytes),
                Transactions(operation),
                operation.Failed ? "yes" : "no",
                operation.StartUtc.ToString("yyyy-MM-dd HH:mm:ss.ffffff", Invariant),
                operation.FilePath);
        }
        table.AppendTo(text, indent: "  ", 1, 4, 5, 7);
    }

    private static string Transactions(in IoOperation operation)
    {
        // A journal group's shared write that carried none of the recording root's own transactions.
        var range = operation.FirstTransactionId < 0 && operation.Kind == IoOperationKind.JournalWrite
            ? "-"
            : operation.FirstTransactionId == operation.LastTransactionId
            ? operation.FirstTransactionId.ToString(Invariant)
            : string.Create(Invariant, $"{operation.FirstTransactionId}..{operation.LastTransactionId}");
        if (operation.EnvironmentCount > 1)
            return string.Create(Invariant, $"{range} ({operation.TransactionCount} tx, {operation.EnvironmentCount} env)");
        return operation.TransactionCount > 1
            ? string.Create(Invariant, $"{range} ({operation.TransactionCount} tx)")
            : range;
    }

    private static string Microseconds(TimeSpan duration) => (duration.Ticks / 10.0).ToString("F1", Invariant);

    private static readonly string[] Units = ["KiB", "MiB", "GiB", "TiB", "PiB"];

    private static string Bytes(long bytes)
    {
        if (bytes < 1024)
            return string.Create(Invariant, $"{bytes} B");
        double value = bytes;
        int unit = -1;
        do
        {
            value /= 1024;
            unit++;
        }
        while (value >= 1024 && unit < Units.Length - 1);
        return string.Create(Invariant, $"{value:F1} {Units[unit]}");
    }
}
