using System.CommandLine;
using Cairn.Reports;

namespace Cairn.Cli.Commands;

/// <summary><c>cairn iostats PATH</c>: a saved I/O statistics dump (or an environment's own) as text, JSON or an HTML timeline.</summary>
internal static class IoStatsCommand
{
    public const string Notes = """
        Every journal write, data-file flush and sync with its size and duration, summed up per kind (count, bytes, mean,
        p50, p99, max) with the slowest listed; --html draws each of them on a time line, one self-contained page to open
        in any browser. The statistics live in the memory of the process that has an environment open, so a running
        workload's are read from the dump it saved with IoStatsJson.WriteJson. Given a directory, the tool opens the
        environment itself and shows its own I/O since that open: what replaying the journals of an environment that was
        not closed cleanly wrote, otherwise nothing.
        """;

    public static Command Create(CliContext context)
    {
        var path = new Argument<string>("PATH")
        {
            Description = "A JSON dump written by IoStatsJson.WriteJson (the demo writes .scratch/demo/io-stats.json), or an environment's directory.",
        };
        var html = new Option<string?>("--html") { Description = "Also write the statistics as one self-contained HTML page (a timeline of every operation) to this file." };
        var json = new Option<bool>("--json") { Description = "Print the statistics as JSON (the IoStatsJson.WriteJson document) instead of text." };
        var slowest = CountOption.Create("--slowest", "-s", "How many of the slowest operations the text lists (10 unless given).");
        var command = new Command("iostats", "Show I/O statistics of a saved dump or an environment: text, JSON, or an HTML time line (--html).")
        {
            path, html, json, slowest,
        };
        command.SetAction(parse =>
        {
            string source = parse.GetValue(path)!;
            var request = new Request(source, parse.GetValue(html), parse.GetValue(json), (int)Math.Min(int.MaxValue, parse.GetValue(slowest) ?? 10));
            return Failures.Guard(context, "iostats", Directory.Exists(source) ? EnvironmentAccess.DataFilePath(source) : null, () => Run(context, request));
        });
        return command;
    }

    private sealed record Request(string Source, string? HtmlPath, bool Json, int Slowest);

    private static int Run(CliContext context, Request request)
    {
        if (File.Exists(request.Source))
        {
            Diagnostics.IoStats stats;
            using (var file = File.OpenRead(request.Source))
                stats = IoStatsJson.ReadJson(file);
            return Show(context, stats, request);
        }
        if (Directory.Exists(request.Source))
        {
            return EnvironmentAccess.Run(context, request.Source, env =>
            {
                if (env.IoStats.TotalRecorded == 0)
                    context.Error.WriteLine("cairn iostats: no I/O since this open (it is read-only and writes nothing). A running workload's statistics " +
                                            "are in its own process: save them there with IoStatsJson.WriteJson and pass that file.");
                return Show(context, env.IoStats, request);
            });
        }
        throw new CliFailure(ExitCodes.IoFailure, $"{request.Source}: no such file or directory");
    }

    private static int Show(CliContext context, Diagnostics.IoStats stats, Request request)
    {
        if (request.Json)
        {
            using var output = new MemoryStream();
            stats.WriteJson(output);
            context.Output.WriteLine(System.Text.Encoding.UTF8.GetString(output.ToArray()));
        }
        else
        {
            context.Output.Write(stats.FormatSummary(request.Slowest));
        }
        if (request.HtmlPath is { } htmlPath)
        {
            using (var page = File.Create(htmlPath))
                stats.WriteHtml(page, Path.GetFullPath(request.Source));
            context.Error.WriteLine($"cairn iostats: wrote {htmlPath} ({stats.Snapshot().Length} operations drawn); open it in a browser");
        }
        return ExitCodes.Success;
    }
}
