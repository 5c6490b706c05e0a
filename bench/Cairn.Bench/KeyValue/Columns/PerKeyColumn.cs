using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Cairn.Bench.KeyValue.Columns;

/// <summary>
/// For benchmarks whose one operation touches every key (a fill, a full scan): the mean per key
/// and keys per second. OperationsPerInvoke cannot say this because it must be a constant and the
/// key count is a parameter.
/// </summary>
public sealed class PerKeyColumn : IColumn
{
    private readonly bool _perSecond;

    private PerKeyColumn(bool perSecond) => _perSecond = perSecond;

    /// <summary>Nanoseconds per key.</summary>
    public static readonly IColumn TimePerKey = new PerKeyColumn(perSecond: false);

    /// <summary>Keys per second.</summary>
    public static readonly IColumn KeysPerSecond = new PerKeyColumn(perSecond: true);

    public string Id => _perSecond ? "KeysPerSecond" : "TimePerKey";
    public string ColumnName => _perSecond ? "Keys/s" : "ns/key";
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Custom;
    public int PriorityInCategory => _perSecond ? 1 : 0;
    public bool IsNumeric => true;
    public UnitType UnitType => UnitType.Dimensionless;
    public string Legend => _perSecond ? "Keys handled per second (KeyCount / Mean)" : "Mean divided by KeyCount, in nanoseconds";

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) =>
        GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        var meanNs = summary[benchmarkCase]?.ResultStatistics?.Mean;
        if (meanNs is not { } mean || mean <= 0 || benchmarkCase.Parameters[nameof(KeyValueBenchmark.KeyCount)] is not int keys)
            return "?";
        return _perSecond
            ? (keys / (mean / 1e9)).ToString("N0", style.CultureInfo)
            : (mean / keys).ToString("0.0", style.CultureInfo);
    }

    public override string ToString() => ColumnName;
}
