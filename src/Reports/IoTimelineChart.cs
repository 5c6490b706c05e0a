using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>
/// The report's timeline: one lane per kind and file (journal writes per journal file, then flushes and syncs of
/// the data file), every operation a bar from its start as long as it took, slow ones red, failed ones dark; each
/// bar carries its description as an SVG title (the hover text) and its sequence number (to find its table row).
/// </summary>
internal static class IoTimelineChart
{
    public const double LabelWidth = 190;
    public const double PlotWidth = 960;
    public const double Width = LabelWidth + PlotWidth + 20;
    private const double AxisHeight = 26;
    private const double GroupHeight = 22;
    private const double LaneHeight = 20;
    private const double BarHeight = 12;
    // A bar shorter than this would not be drawn at all; it stands for an operation all the same.
    private const double MinimumBarWidth = 1.5;
    private const double FailedMinimumWidth = 4;

    public static void Write(TextWriter html, ReadOnlySpan<IoOperation> operations, IoTimeAxis axis, IoSlowThresholds slow)
    {
        var groups = Lanes(operations);
        int laneCount = groups.Sum(g => g.Files.Count);
        double height = AxisHeight + groups.Count * GroupHeight + laneCount * LaneHeight + 8;
        html.Write($"<svg class=\"chart\" id=\"timeline\" width=\"{IoHtml.Number(Width)}\" height=\"{IoHtml.Number(height)}\" " +
                   $"viewBox=\"0 0 {IoHtml.Number(Width)} {IoHtml.Number(height)}\" role=\"img\" aria-label=\"timeline of every operation\">\n");
        WriteAxis(html, axis, height);

        double y = AxisHeight;
        foreach (var (kind, files) in groups)
        {
            html.Write($"<text class=\"group\" x=\"4\" y=\"{IoHtml.Number(y + 15)}\" fill=\"{IoHtml.Color(kind)}\">{IoHtml.Encode(IoHtml.Plural(kind))}</text>\n");
            y += GroupHeight;
            foreach (var file in files)
            {
                html.Write($"<rect class=\"lane\" x=\"{IoHtml.Number(LabelWidth)}\" y=\"{IoHtml.Number(y + 1)}\" width=\"{IoHtml.Number(PlotWidth)}\" height=\"{IoHtml.Number(LaneHeight - 2)}\"/>");
                html.Write($"<text class=\"lane-label\" x=\"16\" y=\"{IoHtml.Number(y + 14)}\"><title>{IoHtml.Encode(file)}</title>{IoHtml.Encode(IoHtml.FileLabel(file))}</text>\n");
                // Slow bars after the others and failed ones last, so that none of them hides under a neighbour.
                foreach (var layer in new[] { Layer.Normal, Layer.Slow, Layer.Failed })
                    WriteBars(html, operations, kind, file, axis, slow, y, layer);
                y += LaneHeight;
            }
        }
        html.Write("</svg>\n");
    }

    private static void WriteAxis(TextWriter html, IoTimeAxis axis, double height)
    {
        foreach (var (x, label) in axis.Ticks())
        {
            html.Write($"<line class=\"grid\" x1=\"{IoHtml.Number(x)}\" y1=\"{IoHtml.Number(AxisHeight - 6)}\" x2=\"{IoHtml.Number(x)}\" y2=\"{IoHtml.Number(height - 4)}\"/>");
            html.Write($"<text class=\"tick\" x=\"{IoHtml.Number(x)}\" y=\"{IoHtml.Number(AxisHeight - 10)}\">{IoHtml.Encode(label)}</text>\n");
        }
    }

    private enum Layer { Normal, Slow, Failed }

    private static void WriteBars(TextWriter html, ReadOnlySpan<IoOperation> operations, IoOperationKind kind, string file,
                                  IoTimeAxis axis, IoSlowThresholds slow, double laneTop, Layer layer)
    {
        foreach (ref readonly var operation in operations)
        {
            if (operation.Kind != kind || !string.Equals(operation.FilePath, file, StringComparison.Ordinal))
                continue;
            bool isSlow = slow.IsSlow(operation);
            if (layer != (operation.Failed ? Layer.Failed : isSlow ? Layer.Slow : Layer.Normal))
                continue;
            string classes = "op " + IoHtml.Name(kind) + (isSlow ? " slow" : "") + (operation.Failed ? " failed" : "");
            // A failed operation fills its lane's height and is never thinner than a few pixels: rare, and the first thing to find.
            double width = Math.Max(operation.Failed ? FailedMinimumWidth : MinimumBarWidth, axis.Length(operation.Duration));
            double height = operation.Failed ? LaneHeight - 2 : BarHeight;
            double y = laneTop + (LaneHeight - height) / 2;
            html.Write($"<rect class=\"{classes}\" data-seq=\"{operation.Sequence}\" x=\"{IoHtml.Number(axis.X(operation.StartUtc))}\" y=\"{IoHtml.Number(y)}\" " +
                       $"width=\"{IoHtml.Number(width)}\" height=\"{IoHtml.Number(height)}\"><title>{IoHtml.Encode(IoHtml.Describe(operation, axis.Start))}</title></rect>\n");
        }
    }

    /// <summary>The kinds present, in the order summaries list them, each with its files in the order they were first used.</summary>
    private static List<(IoOperationKind Kind, List<string> Files)> Lanes(ReadOnlySpan<IoOperation> operations)
    {
        var groups = new List<(IoOperationKind, List<string>)>();
        foreach (var kind in IoKindNames.All)
        {
            var files = new List<string>();
            foreach (ref readonly var operation in operations)
            {
                if (operation.Kind == kind && !files.Contains(operation.FilePath, StringComparer.Ordinal))
                    files.Add(operation.FilePath);
            }
            if (files.Count > 0)
                groups.Add((kind, files));
        }
        return groups;
    }
}
