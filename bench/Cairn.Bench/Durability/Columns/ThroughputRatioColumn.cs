using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Cairn.Bench.Columns;

namespace Cairn.Bench.Durability.Columns;

/// <summary>
/// A row's throughput over a baseline store's in the same run: the baseline's mean divided by this
/// row's, so 2.00 reads "twice the baseline's commits per second", the form the durability issue's
/// targets take (≥ 0.9× the raw rate, ≥ 2× LMDB, ≥ 1.25× SQLite). The inverse of the key-value suite's Ratio/lmdb,
/// which is time over time.
/// </summary>
public sealed class ThroughputRatioColumn(string baselineStore) : IColumn
{
    private const string StoreParameter = nameof(DurableCommitBenchmarks.Store);

    public string Id => $"{nameof(ThroughputRatioColumn)}.{baselineStore}";
    public string ColumnName => $"Rate/{baselineStore}";
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Custom;
    public int PriorityInCategory => baselineStore switch
    {
        DurableStores.Raw => 1,
        DurableStores.Lmdb => 2,
        _ => 3,
    };
    public bool IsNumeric => true;
    public UnitType UnitType => UnitType.Dimensionless;
    public string Legend => $"Commits per second over {baselineStore}'s in the same run ({baselineStore}'s mean / this mean; above 1 is faster)";

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) =>
        ParameterBaseline.TryGetMeans(summary, benchmarkCase, StoreParameter, baselineStore, out var mean, out var baselineMean)
            ? (baselineMean / mean).ToString("0.00", style.CultureInfo)
            : "?";

    public override string ToString() => ColumnName;
}
