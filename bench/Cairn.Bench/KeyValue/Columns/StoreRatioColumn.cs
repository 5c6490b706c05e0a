using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Cairn.Bench.Columns;

namespace Cairn.Bench.KeyValue.Columns;

/// <summary>
/// Mean of this row over the mean of the same benchmark, job and parameters on the baseline store:
/// "Cairn/LMDB" once Cairn is a store. BenchmarkDotNet's own Ratio column can only take a baseline
/// method or job, not a parameter value, and the store is a parameter.
/// </summary>
public sealed class StoreRatioColumn : IColumn
{
    private const string StoreParameter = nameof(KeyValueBenchmark.Store);

    public string Id => nameof(StoreRatioColumn);
    public string ColumnName => $"Ratio/{BenchStores.Baseline}";
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Baseline;
    public int PriorityInCategory => 0;
    public bool IsNumeric => true;
    public UnitType UnitType => UnitType.Dimensionless;
    public string Legend => $"Mean divided by the mean of the same benchmark on {BenchStores.Baseline}";

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) =>
        GetValue(summary, benchmarkCase, summary.Style);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) =>
        ParameterBaseline.TryGetMeans(summary, benchmarkCase, StoreParameter, BenchStores.Baseline, out var mean, out var baselineMean)
            ? (mean / baselineMean).ToString("0.00", style.CultureInfo)
            : "?";

    public override string ToString() => ColumnName;
}
