using System.Globalization;
using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>
/// The HTML form of <see cref="IoStats"/> for people: one self-contained page (inline CSS, SVG and a few lines
/// of script; nothing fetched) with the summary per kind, a timeline of every operation, their durations over
/// time, the slowest ones and a table of all. Rendered on the server side, so it reads the same with scripts off;
/// the script adds the hover box and the jump from a bar to its table row, and marks the body for tests:
/// <c>data-errors</c> counts script errors, <c>data-bars</c> the bars drawn, <c>data-ready</c> says it ran.
/// </summary>
internal sealed class IoStatsHtmlReport(string? title, int capacity, long totalRecorded, long dropped,
                                        IoStatsSummary summary, IoOperation[] operations)
{
    public const int SlowestShown = 10;

    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;
    private readonly IoSlowThresholds _slow = new(summary);
    private readonly IoTimeAxis _axis = IoTimeAxis.For(operations, IoTimelineChart.LabelWidth, IoTimelineChart.PlotWidth);

    public void WriteTo(TextWriter html)
    {
        string heading = string.IsNullOrEmpty(title) ? "I/O statistics" : "I/O statistics: " + title;
        html.Write("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        html.Write($"<title>{IoHtml.Encode(heading)}</title>\n<style>{Style}</style>\n");
        // First, so that an error anywhere later is counted.
        html.Write("<script>window.addEventListener('error',function(){var b=document.body;if(b)b.setAttribute('data-errors',String(Number(b.getAttribute('data-errors')||0)+1));});</script>\n");
        html.Write("</head>\n<body data-errors=\"0\">\n<main>\n");
        html.Write($"<h1>{IoHtml.Encode(heading)}</h1>\n");
        WriteOverview(html);
        WriteSummary(html);
        if (operations.Length > 0)
        {
            html.Write("<h2>When: every operation on a time line</h2>\n<p class=\"note\">One lane per kind and file; each bar starts when the operation started " +
                       "and is as long as it took (at least 1.5 px wide, however short). Hover over a bar for its size, transactions and file; click it for its row below.</p>\n");
            IoTimelineChart.Write(html, operations, _axis, _slow);
            html.Write("<h2>How long: each operation's duration over time</h2>\n<p class=\"note\">Log scale; one dot per operation; dashed lines: each kind's 99th percentile. " +
                       "Where the disk was slow, the dots climb.</p>\n");
            IoDurationChart.Write(html, operations, summary, _axis, _slow);
            WriteSlowest(html);
            WriteAll(html);
        }
        else
        {
            html.Write("<p class=\"empty\">No operations recorded.</p>\n");
        }
        html.Write("</main>\n<div id=\"tip\" role=\"tooltip\"></div>\n");
        html.Write($"<script>{Script}</script>\n</body>\n</html>\n");
    }

    private void WriteOverview(TextWriter html)
    {
        html.Write("<p class=\"overview\">");
        html.Write(string.Create(Invariant, $"The last {operations.Length:N0} of {totalRecorded:N0} operations recorded (ring capacity {capacity:N0}, {dropped:N0} dropped)"));
        if (operations.Length > 0)
        {
            var end = _axis.Start + _axis.Span;
            html.Write(string.Create(Invariant, $", from {_axis.Start:yyyy-MM-dd HH:mm:ss.fff} to {end:HH:mm:ss.fff} UTC ({IoTimeAxis.Duration(_axis.Span)})"));
        }
        html.Write(".</p>\n");
    }

    private void WriteSummary(TextWriter html)
    {
        html.Write("<table class=\"summary\">\n<thead><tr><th>kind</th><th>count</th><th>failed</th><th>bytes</th><th>total ms</th><th>mean</th><th>p50</th>" +
                   "<th>p99</th><th>max</th><th>rate while writing</th><th>slow</th></tr></thead>\n<tbody>\n");
        foreach (var kind in summary.Kinds)
        {
            var threshold = _slow.For(kind.Kind);
            int slowCount = operations.Count(o => o.Kind == kind.Kind && _slow.IsSlow(o));
            string slowCell = threshold is { } t ? string.Create(Invariant, $"{slowCount:N0} (≥ {IoTimeAxis.Duration(t)})") : "–";
            html.Write($"<tr><td><span class=\"swatch\" style=\"background:{IoHtml.Color(kind.Kind)}\"></span>{IoHtml.Name(kind.Kind)}</td>");
            // No operations, no durations: a dash rather than a 0 µs that never happened.
            string Time(TimeSpan duration) => kind.Count == 0 ? "–" : IoTimeAxis.Duration(duration);
            html.Write(string.Create(Invariant,
                $"<td>{kind.Count:N0}</td><td{(kind.Failed > 0 ? " class=\"bad\"" : "")}>{kind.Failed:N0}</td><td>{IoStatsFormat.Bytes(kind.Bytes)}</td>" +
                $"<td>{kind.TotalDuration.TotalMilliseconds:F3}</td><td>{Time(kind.MeanDuration)}</td><td>{Time(kind.P50Duration)}</td>" +
                $"<td>{Time(kind.P99Duration)}</td><td>{Time(kind.MaxDuration)}</td>" +
                $"<td>{IoStatsFormat.Bytes((long)Math.Round(kind.BytesPerSecond))}/s</td><td{(slowCount > 0 ? " class=\"bad\"" : "")}>{IoHtml.Encode(slowCell)}</td></tr>\n"));
        }
        html.Write("</tbody>\n</table>\n");
        html.Write($"<p class=\"legend\"><span class=\"swatch\" style=\"background:{IoHtml.SlowColor}\"></span>slow: at least {IoSlowThresholds.MedianMultiple}× the median of its kind " +
                   "<span class=\"swatch failed-swatch\"></span>failed (the duration is the time until it threw)</p>\n");
    }

    private void WriteSlowest(TextWriter html)
    {
        var slowest = IoStatsFormat.Slowest(operations, SlowestShown);
        html.Write(string.Create(Invariant, $"<h2>The {slowest.Length:N0} slowest</h2>\n"));
        WriteTable(html, slowest, idPrefix: null);
    }

    private void WriteAll(TextWriter html)
    {
        html.Write(string.Create(Invariant, $"<details id=\"all\"><summary>All {operations.Length:N0} operations</summary>\n"));
        WriteTable(html, operations, idPrefix: "op-");
        html.Write("</details>\n");
    }

    private void WriteTable(TextWriter html, IoOperation[] rows, string? idPrefix)
    {
        html.Write("<table class=\"ops\">\n<thead><tr><th>seq</th><th>kind</th><th>start</th><th>started (UTC)</th><th>duration</th><th>bytes</th>" +
                   "<th>transactions</th><th class=\"carried\" title=\"the environments whose entries a journal group's shared write carried\">carried for</th>" +
                   "<th>failed</th><th>file</th></tr></thead>\n<tbody>\n");
        foreach (var operation in rows)
        {
            string id = idPrefix is null ? "" : $" id=\"{idPrefix}{operation.Sequence}\"";
            string classes = (_slow.IsSlow(operation) ? "slow " : "") + (operation.Failed ? "failed" : "");
            html.Write(string.Create(Invariant,
                $"<tr{id}{(classes.Length > 0 ? $" class=\"{classes.Trim()}\"" : "")}><td>{operation.Sequence}</td>" +
                $"<td><span class=\"swatch\" style=\"background:{IoHtml.Color(operation.Kind)}\"></span>{IoHtml.Name(operation.Kind)}</td>" +
                $"<td>+{(operation.StartUtc - _axis.Start).TotalSeconds:F3} s</td><td>{operation.StartUtc:HH:mm:ss.ffffff}</td>" +
                $"<td>{IoTimeAxis.Duration(operation.Duration)}</td><td>{IoStatsFormat.Bytes(operation.Bytes)}</td>" +
                $"<td>{IoHtml.Encode(IoStatsFormat.Transactions(operation))}</td>" +
                $"<td class=\"carried\" title=\"{IoHtml.Encode(IoStatsFormat.CarriedInFull(operation))}\">{IoHtml.Encode(IoStatsFormat.Carried(operation))}</td>" +
                $"<td>{(operation.Failed ? "yes" : "no")}</td>" +
                $"<td class=\"file\" title=\"{IoHtml.Encode(operation.FilePath)}\">{IoHtml.Encode(IoHtml.FileLabel(operation.FilePath))}</td></tr>\n"));
        }
        html.Write("</tbody>\n</table>\n");
    }

    private const string Style = """
        body{margin:0;background:#fff;color:#222;font:14px/1.45 "DejaVu Sans",Verdana,sans-serif}
        main{max-width:1200px;margin:0 auto;padding:18px 20px 40px}
        h1{font-size:22px;margin:0 0 4px;font-weight:600;word-break:break-all}
        h2{font-size:16px;margin:26px 0 2px;font-weight:600}
        p{margin:4px 0}.note,.overview,.legend{color:#555}.empty{font-style:italic}
        table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
        th,td{padding:3px 9px;text-align:right;border-bottom:1px solid #e6e6e6;white-space:nowrap}
        th{font-weight:600;background:#f4f5f7;border-bottom:1px solid #ccc}
        td:first-child,th:first-child{text-align:left}
        table.ops td:nth-child(2),table.ops td.file,table.ops td.carried,table.ops th.carried,table.ops th:nth-child(2),table.ops th:last-child{text-align:left}
        td.file{max-width:360px;overflow:hidden;text-overflow:ellipsis}
        td.carried{white-space:nowrap}
        tr.slow td{background:#fbe9eb}tr.failed td{color:#000;font-weight:600}tr.hl td{background:#fff3b0}
        td.bad{color:#b3261e;font-weight:600}
        .swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 6px 0 2px;vertical-align:baseline}
        .failed-swatch{background:#222;outline:2px solid #d1495b;outline-offset:-1px;margin-left:16px}
        svg.chart{display:block;margin:6px 0 0;font:12px "DejaVu Sans",Verdana,sans-serif}
        .lane{fill:#f6f7f9}.grid{stroke:#dcdfe4;stroke-width:1}
        .tick{fill:#666;font-size:11px;text-anchor:middle}.tick[text-anchor=end]{text-anchor:end}
        .group{font-weight:600;font-size:12.5px}.lane-label{fill:#333;font-size:12px}
        rect.op{opacity:.75}rect.op.journalWrite,circle.journalWrite{fill:#3b6fb6}
        rect.op.dataFlush,circle.dataFlush{fill:#2a9d8f}rect.op.dataSync,circle.dataSync{fill:#8e6bbf}
        rect.op.slow{fill:#d1495b;opacity:1}rect.op.failed{fill:#222;stroke:#d1495b;stroke-width:1.5;opacity:1}
        circle.pt{opacity:.6}circle.pt.slow{stroke:#d1495b;stroke-width:1.5;opacity:1}circle.pt.failed{fill:#222;stroke:#d1495b;stroke-width:2;opacity:1}
        .p99{stroke-dasharray:5 4;stroke-width:1.3}
        rect.op:hover,circle.pt:hover{stroke:#000;stroke-width:1.5;opacity:1}
        details{margin-top:22px}summary{cursor:pointer;font-weight:600}
        #tip{position:absolute;display:none;max-width:560px;padding:6px 9px;background:#222;color:#fff;font-size:12px;border-radius:4px;pointer-events:none;white-space:normal}
        """;

    // Plain ES5 and no library: it must run anywhere the page is opened.
    private const string Script = """
        (function(){
          var body=document.body,tip=document.getElementById('tip'),bars=document.querySelectorAll('rect.op'),bySeq={};
          for(var i=0;i<bars.length;i++)bySeq[bars[i].getAttribute('data-seq')]=bars[i];
          function target(e){var t=e.target;return t&&t.getAttribute&&t.getAttribute('data-seq')!==null&&t.tagName!=='TR'?t:null;}
          document.addEventListener('mousemove',function(e){
            var t=target(e);if(!t){tip.style.display='none';return;}
            var bar=bySeq[t.getAttribute('data-seq')],title=bar&&bar.querySelector('title');
            tip.textContent=title?title.textContent:'';tip.style.display='block';
            tip.style.left=Math.min(e.pageX+14,document.documentElement.scrollWidth-580)+'px';tip.style.top=(e.pageY+14)+'px';
          });
          document.addEventListener('click',function(e){
            var t=target(e);if(!t)return;
            var row=document.getElementById('op-'+t.getAttribute('data-seq'));if(!row)return;
            document.getElementById('all').open=true;row.classList.add('hl');row.scrollIntoView({block:'center'});
            setTimeout(function(){row.classList.remove('hl');},2500);
          });
          body.setAttribute('data-bars',String(bars.length));
          body.setAttribute('data-ready','1');
        })();
        """;
}
