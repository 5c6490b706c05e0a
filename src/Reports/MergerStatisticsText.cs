using System.Globalization;
using System.Text;
using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>The text form of a <see cref="MergerStatisticsSnapshot"/> for people.</summary>
public static class MergerStatisticsText
{
    /// <summary>
    /// A short report for people: totals, then the recent batches joined with the journal writes in
    /// <paramref name="ioStats"/> that carried them (transactions per journal write, write latency).
    /// </summary>
    /// <param name="snapshot">What the merger has done (<c>env.MergerStatistics.Snapshot()</c>).</param>
    /// <param name="ioStats">The same environment's I/O statistics, to join the batches with their journal writes; null for the totals only.</param>
    public static string Format(this MergerStatisticsSnapshot snapshot, IoStats? ioStats = null)
    {
        ArgumentNullException.ThrowIfNull(snapshot);
        var c = CultureInfo.InvariantCulture;
        var s = snapshot;
        var text = new StringBuilder();
        text.Append(c, $"merger: {s.Operations:N0} operations in {s.Transactions:N0} transactions ({s.OperationsPerTransaction:F1} per transaction, max {s.MaxOperationsPerTransaction:N0}); ");
        text.Append(c, $"{s.FailedOperations:N0} failed, {s.CancelledOperations:N0} cancelled, {s.Reruns:N0} re-runs; queue wait mean {s.AverageQueueWait.TotalMicroseconds:F0} µs, max {s.MaxQueueWait.TotalMicroseconds:F0} µs");
        text.AppendLine();
        if (ioStats is null || s.RecentBatches.Count == 0)
            return text.ToString();
        var operationsByTransaction = new Dictionary<long, int>(s.RecentBatches.Count);
        foreach (var batch in s.RecentBatches)
            operationsByTransaction[batch.TransactionId] = batch.Operations;
        var writes = ioStats.Snapshot().Where(o => o.Kind == IoOperationKind.JournalWrite && !o.Failed && operationsByTransaction.ContainsKey(o.FirstTransactionId)).ToArray();
        if (writes.Length == 0)
            return text.ToString();
        double perWrite = writes.Average(w => w.TransactionCount);
        double operationsPerWrite = writes.Sum(w => operationsByTransaction[w.FirstTransactionId]) / (double)writes.Length;
        var latencies = writes.Select(w => w.Duration.TotalMicroseconds).Order().ToArray();
        text.Append(c, $"recent journal writes of merged transactions: {writes.Length:N0}, {perWrite:F1} transactions and {operationsPerWrite:F1} operations per write, ");
        text.Append(c, $"write p50 {latencies[latencies.Length / 2]:F0} µs, p99 {latencies[Math.Min(latencies.Length - 1, (int)(latencies.Length * 0.99))]:F0} µs");
        text.AppendLine();
        return text.ToString();
    }
}
