using System.Globalization;
using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>The few ways the text and HTML forms of <see cref="IoStats"/> both print numbers, so a person sees the same figures in each.</summary>
internal static class IoStatsFormat
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>The <paramref name="count"/> longest operations, longest first; among equals the earlier one, so a listing is deterministic.</summary>
    public static IoOperation[] Slowest(ReadOnlySpan<IoOperation> operations, int count)
    {
        var sorted = operations.ToArray();
        Array.Sort(sorted, static (a, b) => a.Duration != b.Duration ? b.Duration.CompareTo(a.Duration) : a.Sequence.CompareTo(b.Sequence));
        return sorted.Length > count ? sorted[..count] : sorted;
    }

    public static string Transactions(in IoOperation operation)
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

    /// <summary>Most names a cell lists before it says how many more there are (the full list is in the cell's hover text).</summary>
    private const int CarriedShown = 4;

    /// <summary>
    /// The environments a shared write carried, compactly: "root, branch1, branch2" or, past <see cref="CarriedShown"/>,
    /// "root, branch1, branch2, branch3 +5 more"; empty for any other operation.
    /// </summary>
    public static string Carried(in IoOperation operation)
    {
        var names = operation.Environments;
        if (names.Count <= CarriedShown)
            return string.Join(", ", names);
        return string.Create(Invariant, $"{string.Join(", ", names.Take(CarriedShown))} +{names.Count - CarriedShown} more");
    }

    /// <summary>Every environment a shared write carried (hover text).</summary>
    public static string CarriedInFull(in IoOperation operation) => string.Join(", ", operation.Environments);

    public static string Microseconds(TimeSpan duration) => (duration.Ticks / 10.0).ToString("F1", Invariant);

    private static readonly string[] Units = ["KiB", "MiB", "GiB", "TiB", "PiB"];

    public static string Bytes(long bytes)
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
