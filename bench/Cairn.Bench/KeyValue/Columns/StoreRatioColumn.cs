using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

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

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        var baseline = summary.BenchmarksCases.FirstOrDefault(candidate => IsBaselineOf(candidate, benchmarkCase));
        var mean = summary[benchmarkCase]?.ResultStatistics?.Mean;
        var baselineMean = baseline is null ? null : summary[baseline]?.ResultStatistics?.Mean;
        if (mean is not { } m || baselineMean is not { } b || b <= 0)
            return "?";
        return (m / b).ToString("0.00", style.CultureInfo);
    }

    public override string ToString() => ColumnName;

    private static bool IsBaselineOf(BenchmarkCase candidate, BenchmarkCase row)
    {
        if (candidate.Descriptor != row.Descriptor || candidate.Job.DisplayInfo != row.Job.DisplayInfo)
            return false;
        if (!Equals(candidate.Parameters[StoreParameter], BenchStores.Baseline))
            return false;
        foreach (var parameter in row.Parameters.Items)
        {
            if (parameter.Name != StoreParameter && !Equals(candidate.Parameters[parameter.Name], parameter.Value))
                return false;
        }
        return true;
    }
}
