using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Cairn.Bench.Columns;

/// <summary>
/// Finds a row's baseline when the baseline is a parameter value (a store) rather than a method or
/// job, which is all BenchmarkDotNet's own Ratio column can take: the case with the same method,
/// job and other parameters whose <c>parameterName</c> is <c>baselineValue</c>.
/// </summary>
public static class ParameterBaseline
{
    /// <summary>Mean of <paramref name="row"/> and of its baseline, in nanoseconds; false when either is missing.</summary>
    public static bool TryGetMeans(Summary summary, BenchmarkCase row, string parameterName, object baselineValue,
        out double rowMean, out double baselineMean)
    {
        rowMean = baselineMean = 0;
        var baseline = summary.BenchmarksCases.FirstOrDefault(candidate => IsBaselineOf(candidate, row, parameterName, baselineValue));
        if (summary[row]?.ResultStatistics?.Mean is not { } mean || mean <= 0)
            return false;
        if (baseline is null || summary[baseline]?.ResultStatistics?.Mean is not { } b || b <= 0)
            return false;
        rowMean = mean;
        baselineMean = b;
        return true;
    }

    private static bool IsBaselineOf(BenchmarkCase candidate, BenchmarkCase row, string parameterName, object baselineValue)
    {
        if (candidate.Descriptor != row.Descriptor || candidate.Job.DisplayInfo != row.Job.DisplayInfo)
            return false;
        if (!Equals(candidate.Parameters[parameterName], baselineValue))
            return false;
        foreach (var parameter in row.Parameters.Items)
        {
            if (parameter.Name != parameterName && !Equals(candidate.Parameters[parameter.Name], parameter.Value))
                return false;
        }
        return true;
    }
}
