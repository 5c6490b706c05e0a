using System.Globalization;
using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>
/// The report's second chart: how long each operation took (a log scale, so 60 µs writes and a 2 s stall fit on
/// one chart) against when it started, one dot per operation in its kind's colour, with each kind's 99th
/// percentile as a dashed line. Where the disk was slow, dots climb.
/// </summary>
internal static class IoDurationChart
{
    private const double Top = 14;
    private const double PlotHeight = 200;
    private const double Height = Top + PlotHeight + 22;
    private const double DotRadius = 2.6;
    private const double FailedDotRadius = 4.5;

    public static void Write(TextWriter html, ReadOnlySpan<IoOperation> operations, IoStatsSummary summary, IoTimeAxis axis, IoSlowThresholds slow)
    {
        var (lowDecade, highDecade) = Decades(operations);
        double Y(TimeSpan duration)
        {
            double microseconds = Math.Max(duration.Ticks / 10.0, Math.Pow(10, lowDecade));
            return Top + PlotHeight - (Math.Log10(microseconds) - lowDecade) / (highDecade - lowDecade) * PlotHeight;
        }

        html.Write($"<svg class=\"chart\" id=\"durations\" width=\"{IoHtml.Number(IoTimelineChart.Width)}\" height=\"{IoHtml.Number(Height)}\" " +
                   $"viewBox=\"0 0 {IoHtml.Number(IoTimelineChart.Width)} {IoHtml.Number(Height)}\" role=\"img\" aria-label=\"duration of every operation over time\">\n");
        double left = IoTimelineChart.LabelWidth, right = IoTimelineChart.LabelWidth + IoTimelineChart.PlotWidth;
        html.Write($"<rect class=\"lane\" x=\"{IoHtml.Number(left)}\" y=\"{IoHtml.Number(Top)}\" width=\"{IoHtml.Number(IoTimelineChart.PlotWidth)}\" height=\"{IoHtml.Number(PlotHeight)}\"/>\n");
        for (int decade = lowDecade; decade <= highDecade; decade++)
        {
            double y = Top + PlotHeight - (decade - lowDecade) / (double)(highDecade - lowDecade) * PlotHeight;
            html.Write($"<line class=\"grid\" x1=\"{IoHtml.Number(left)}\" y1=\"{IoHtml.Number(y)}\" x2=\"{IoHtml.Number(right)}\" y2=\"{IoHtml.Number(y)}\"/>");
            string label = IoTimeAxis.Duration(TimeSpan.FromTicks((long)Math.Round(Math.Pow(10, decade) * 10)));
            html.Write($"<text class=\"tick\" text-anchor=\"end\" x=\"{IoHtml.Number(left - 8)}\" y=\"{IoHtml.Number(y + 4)}\">{IoHtml.Encode(label)}</text>\n");
        }
        foreach (var (x, label) in axis.Ticks())
        {
            html.Write($"<line class=\"grid\" x1=\"{IoHtml.Number(x)}\" y1=\"{IoHtml.Number(Top)}\" x2=\"{IoHtml.Number(x)}\" y2=\"{IoHtml.Number(Top + PlotHeight)}\"/>");
            html.Write($"<text class=\"tick\" x=\"{IoHtml.Number(x)}\" y=\"{IoHtml.Number(Top + PlotHeight + 16)}\">{IoHtml.Encode(label)}</text>\n");
        }
        foreach (var kind in summary.Kinds)
        {
            if (kind.Count == 0)
                continue;
            double y = Y(kind.P99Duration);
            html.Write($"<line class=\"p99\" stroke=\"{IoHtml.Color(kind.Kind)}\" x1=\"{IoHtml.Number(left)}\" y1=\"{IoHtml.Number(y)}\" x2=\"{IoHtml.Number(right)}\" y2=\"{IoHtml.Number(y)}\">" +
                       $"<title>{IoHtml.Encode($"{IoHtml.Name(kind.Kind)} p99 {IoTimeAxis.Duration(kind.P99Duration)}")}</title></line>\n");
        }
        // Failed ones last and larger, so that none hides in a crowd.
        foreach (bool failedOnes in new[] { false, true })
        {
            foreach (ref readonly var operation in operations)
            {
                if (operation.Failed != failedOnes)
                    continue;
                string classes = "pt " + IoHtml.Name(operation.Kind) + (slow.IsSlow(operation) ? " slow" : "") + (operation.Failed ? " failed" : "");
                double radius = operation.Failed ? FailedDotRadius : DotRadius;
                // No title of its own: the script shows the bar's, found by the sequence number (half the page's size).
                html.Write(string.Create(CultureInfo.InvariantCulture,
                    $"<circle class=\"{classes}\" data-seq=\"{operation.Sequence}\" cx=\"{IoHtml.Number(axis.X(operation.StartUtc))}\" cy=\"{IoHtml.Number(Y(operation.Duration))}\" r=\"{IoHtml.Number(radius)}\"/>\n"));
            }
        }
        html.Write("</svg>\n");
    }

    /// <summary>Powers of ten (in µs) just below the shortest and just above the longest duration, at least one decade apart.</summary>
    private static (int Low, int High) Decades(ReadOnlySpan<IoOperation> operations)
    {
        double shortest = double.MaxValue, longest = 0;
        foreach (ref readonly var operation in operations)
        {
            double microseconds = operation.Duration.Ticks / 10.0;
            if (microseconds > 0)
                shortest = Math.Min(shortest, microseconds);
            longest = Math.Max(longest, microseconds);
        }
        if (longest <= 0)
            return (0, 1);
        int low = (int)Math.Floor(Math.Log10(shortest));
        int high = Math.Max(low + 1, (int)Math.Ceiling(Math.Log10(longest)));
        return (low, high);
    }
}
