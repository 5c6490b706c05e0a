using System.Text;
using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>The HTML form of <see cref="IoStats"/>: one self-contained page for people (schema of its parts: docs/design.md, "IO statistics").</summary>
public static class IoStatsHtml
{
    /// <summary>
    /// Writes the statistics as one self-contained HTML page (no network, no external scripts or fonts): every
    /// operation as a bar on a time axis, in lanes per kind and file, as long as it took; each operation's
    /// duration on a log scale over time; the summary per kind; the slowest operations and a table of all of
    /// them. Summary and drawing come from the same snapshot. The stream is flushed, not closed.
    /// </summary>
    /// <param name="stats">The statistics to draw.</param>
    /// <param name="utf8Output">Where the page goes (UTF-8).</param>
    /// <param name="title">What the page is about (an environment's directory, a dump's file name), shown in its heading.</param>
    public static void WriteHtml(this IoStats stats, Stream utf8Output, string? title = null)
    {
        ArgumentNullException.ThrowIfNull(stats);
        ArgumentNullException.ThrowIfNull(utf8Output);
        var operations = stats.Snapshot();
        var report = new IoStatsHtmlReport(title, stats.Capacity, stats.TotalRecorded, stats.Dropped, IoStatsSummary.From(operations), operations);
        using var writer = new StreamWriter(utf8Output, new UTF8Encoding(false), bufferSize: 1 << 16, leaveOpen: true);
        report.WriteTo(writer);
        writer.Flush();
    }
}
