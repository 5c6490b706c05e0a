using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Cairn.Bench.Durability.Columns;

/// <summary>Durable commits per second, from the mean per commit (the benchmark's operation is one commit).</summary>
public sealed class CommitsPerSecondColumn : IColumn
{
    public string Id => nameof(CommitsPerSecondColumn);
    public string ColumnName => "Commits/s";
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Custom;
    public int PriorityInCategory => 0;
    public bool IsNumeric => true;
    public UnitType UnitType => UnitType.Dimensionless;
    public string Legend => "Durable commits per second (1 s / Mean)";

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) =>
        summary[benchmarkCase]?.ResultStatistics?.Mean is { } mean && mean > 0
            ? (1e9 / mean).ToString("N0", style.CultureInfo)
            : "?";

    public override string ToString() => ColumnName;
}
