using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Cairn.Bench.Columns;

namespace Cairn.Bench.Durability.Columns;

/// <summary>Durable commits per second, from the mean per commit (the benchmark's operation is one commit).</summary>
public sealed class CommitsPerSecondColumn : MeanColumn
{
    public override string Id => nameof(CommitsPerSecondColumn);
    public override string ColumnName => "Commits/s";
    public override string Legend => "Durable commits per second (1 s / Mean)";

    protected override string? Format(double meanNanoseconds, BenchmarkCase benchmarkCase, SummaryStyle style)
        => (1e9 / meanNanoseconds).ToString("N0", style.CultureInfo);
}
