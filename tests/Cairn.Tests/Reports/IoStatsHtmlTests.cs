using System.Text;
using System.Text.RegularExpressions;
using Cairn.Diagnostics;
using Cairn.Reports;
using Cairn.Tests.Diagnostics;

namespace Cairn.Tests.Reports;

/// <summary>The HTML page's content as text: one bar per operation, what marks them, escaping, and no outside resource.</summary>
public partial class IoStatsHtmlTests
{
    [Fact]
    public void Draws_one_bar_and_one_dot_per_operation_and_lists_each_once()
    {
        var stats = IoStatsSample.Create();
        var operations = stats.Snapshot();
        string html = Html(stats, "orders");

        Assert.Equal(operations.Length, Bars().Matches(html).Count);
        Assert.Equal(operations.Length, Dots().Matches(html).Count);
        Assert.Equal(operations.Select(o => o.Sequence), Rows().Matches(html).Select(m => long.Parse(m.Groups[1].Value)));
        Assert.Contains("<title>I/O statistics: orders</title>", html);
        Assert.Contains($"The last {operations.Length:N0} of {stats.TotalRecorded:N0} operations recorded", html);
    }

    [Fact]
    public void Marks_slow_and_failed_operations()
    {
        var stats = IoStatsSample.Create();
        var operations = stats.Snapshot();
        var summary = stats.Summarize();
        string html = Html(stats);

        foreach (var bar in Bars().Matches(html).Cast<Match>())
        {
            long seq = long.Parse(bar.Groups["seq"].Value);
            var operation = operations.Single(o => o.Sequence == seq);
            var median = summary[operation.Kind].P50Duration;
            Assert.Equal(operation.Duration >= median * 4, bar.Groups["class"].Value.Contains(" slow"));
            Assert.Equal(operation.Failed, bar.Groups["class"].Value.Contains(" failed"));
        }
        Assert.Single(operations, o => o.Failed);
        Assert.Contains("class=\"op journalWrite failed\"", html);
    }

    [Fact]
    public void Is_self_contained_and_escapes_what_it_shows()
    {
        var stats = new IoStats(16);
        const string hostile = "/env/<script>alert(1)</script>&\"'.data";
        stats.Record(IoOperationKind.DataFlush, IoTime.Origin, IoTime.Origin + IoTime.Microseconds(10), 8192, hostile, 1, 1, 1);
        string html = Html(stats, "<b>title</b>");

        Assert.DoesNotContain("<script>alert", html);
        Assert.DoesNotContain("<b>title</b>", html);
        Assert.Contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;.data", html);
        Assert.DoesNotMatch(@"(src|href)\s*=", html);
        Assert.DoesNotContain("http", html, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("@import", html);
    }

    [Fact]
    public void An_empty_ring_says_so_and_draws_nothing()
    {
        string html = Html(new IoStats(16));
        Assert.Contains("No operations recorded.", html);
        Assert.Empty(Bars().Matches(html));
    }

    [Fact]
    public void The_same_statistics_give_the_same_page()
    {
        Assert.Equal(Html(IoStatsSample.Create()), Html(IoStatsSample.Create()));
    }

    internal static string Html(IoStats stats, string? title = null)
    {
        var stream = new MemoryStream();
        stats.WriteHtml(stream, title);
        return Encoding.UTF8.GetString(stream.ToArray());
    }

    [GeneratedRegex("<rect class=\"(?<class>op [^\"]*)\" data-seq=\"(?<seq>\\d+)\"")]
    internal static partial Regex Bars();

    [GeneratedRegex("<tr id=\"op-(\\d+)\"")]
    private static partial Regex Rows();

    [GeneratedRegex("<circle class=\"pt [^\"]*\" data-seq=\"\\d+\"")]
    private static partial Regex Dots();
}
