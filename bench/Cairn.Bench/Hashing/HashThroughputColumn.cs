using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Cairn.Bench.Hashing;

/// <summary>Bytes hashed per second, in GB/s (10^9 bytes): <see cref="HashInputs.BytesHashed"/> over Mean.</summary>
public sealed class HashThroughputColumn : IColumn
{
    public string Id => "HashThroughput";
    public string ColumnName => "GB/s";
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Custom;
    public int PriorityInCategory => 0;
    public bool IsNumeric => true;
    public UnitType UnitType => UnitType.Dimensionless;
    public string Legend => "Bytes hashed per operation over Mean, in 10^9 bytes per second";

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        var meanNs = summary[benchmarkCase]?.ResultStatistics?.Mean;
        if (meanNs is not { } mean || mean <= 0 || benchmarkCase.Parameters[nameof(HashBenchmarks.Input)] is not HashInput input)
            return "?";
        return (HashInputs.BytesHashed(input) / mean).ToString("0.00", style.CultureInfo);
    }

    public override string ToString() => ColumnName;
}
