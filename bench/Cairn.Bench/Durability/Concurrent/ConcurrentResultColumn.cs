using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Cairn.Bench.Durability.Concurrent;

/// <summary>
/// A figure the benchmark process measured itself (<see cref="ConcurrentCommitResult"/>): p50 or
/// p99 latency of one put, or puts per durable log write.
/// </summary>
public sealed class ConcurrentResultColumn : IColumn
{
    public enum Figure
    {
        P50,
        P99,
        PutsPerLogWrite,
    }

    private readonly Figure _figure;

    public ConcurrentResultColumn(Figure figure) => _figure = figure;

    public static readonly ConcurrentResultColumn P50 = new(Figure.P50);
    public static readonly ConcurrentResultColumn P99 = new(Figure.P99);
    public static readonly ConcurrentResultColumn PutsPerLogWrite = new(Figure.PutsPerLogWrite);

    public string Id => $"{nameof(ConcurrentResultColumn)}.{_figure}";

    public string ColumnName => _figure switch
    {
        Figure.P50 => "p50 [us]",
        Figure.P99 => "p99 [us]",
        _ => "Puts/log write",
    };

    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Custom;
    public int PriorityInCategory => 10 + (int)_figure;
    public bool IsNumeric => true;
    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => _figure switch
    {
        Figure.P50 => "Median latency of one durable put as its caller sees it, over every put of the measured iterations (µs)",
        Figure.P99 => "99th-percentile latency of one durable put as its caller sees it, over every put of the measured iterations (µs)",
        _ => "Puts per durable log write in the measured iterations (rocksdb: WAL syncs; cairn-merger: journal writes); '-' where every commit is its own sync (lmdb, sqlite)",
    };

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        if (ConcurrentCommitResult.Find(summary, benchmarkCase) is not { } result)
            return "?";
        var culture = style.CultureInfo;
        return _figure switch
        {
            Figure.P50 => result.P50Microseconds.ToString("N1", culture),
            Figure.P99 => result.P99Microseconds.ToString("N1", culture),
            _ => double.IsNaN(result.PutsPerLogWrite) ? "-" : result.PutsPerLogWrite.ToString("0.00", culture),
        };
    }

    public override string ToString() => ColumnName;
}
