using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Cairn.Bench.Columns;

/// <summary>
/// A custom numeric column computed from a row's Mean (nanoseconds per operation): a subclass names it,
/// explains it and formats the value; the rest of <see cref="IColumn"/> is the same for all of them.
/// </summary>
public abstract class MeanColumn : IColumn
{
    public abstract string Id { get; }
    public abstract string ColumnName { get; }
    public abstract string Legend { get; }
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Custom;
    public int PriorityInCategory => 0;
    public bool IsNumeric => true;
    public UnitType UnitType => UnitType.Dimensionless;

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) =>
        summary[benchmarkCase]?.ResultStatistics?.Mean is { } mean && mean > 0
            ? Format(mean, benchmarkCase, style) ?? "?"
            : "?";

    /// <summary>The cell of a row whose Mean is <paramref name="meanNanoseconds"/>; null when the row does not say enough.</summary>
    protected abstract string? Format(double meanNanoseconds, BenchmarkCase benchmarkCase, SummaryStyle style);

    public override string ToString() => ColumnName;
}
