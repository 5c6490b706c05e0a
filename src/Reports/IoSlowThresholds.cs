using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>
/// Which operations the HTML report marks as slow: those that took at least <see cref="MedianMultiple"/> times
/// the median of their kind. Relative to the kind's own median rather than its 99th percentile, so that a few
/// operations (a handful of syncs) can show an outlier too, and a disk that was slow throughout shows as slow
/// against another run rather than nowhere.
/// </summary>
internal sealed class IoSlowThresholds(IoStatsSummary summary)
{
    public const int MedianMultiple = 4;

    /// <summary>The shortest slow duration of a kind; null when the kind has too few operations to have a median worth the name.</summary>
    public TimeSpan? For(IoOperationKind kind)
    {
        var kindSummary = summary[kind];
        if (kindSummary.Count < 2 || kindSummary.P50Duration <= TimeSpan.Zero)
            return null;
        return kindSummary.P50Duration * MedianMultiple;
    }

    public bool IsSlow(in IoOperation operation) => For(operation.Kind) is { } threshold && operation.Duration >= threshold;
}
