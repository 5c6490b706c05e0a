using System.Globalization;

namespace Cairn.Stress.Campaigns;

/// <summary>A line on the host's writer every interval while a campaign runs, so a person sees it move.</summary>
internal sealed class ProgressPrinter : IDisposable
{
    private readonly Timer _timer;
    private readonly Lock _gate = new();
    private readonly TextWriter _writer;
    private readonly Func<string> _line;
    private bool _stopped;

    private ProgressPrinter(TextWriter writer, TimeSpan interval, Func<string> line)
    {
        _writer = writer;
        _line = line;
        _timer = new Timer(_ => Print(), null, interval, interval);
    }

    public static ProgressPrinter? Start(TextWriter? writer, TimeSpan interval, Func<string> line)
        => writer is null ? null : new ProgressPrinter(writer, interval, line);

    /// <summary>A kill campaign's line: kills, acknowledgements, violations, recovery times.</summary>
    public static string KillLine(CampaignFigures f) => string.Create(CultureInfo.InvariantCulture,
        $"[{Units.Seconds(f.Elapsed)}] kills {f.Kills:N0} ({f.KillsAtPoints.Values.Sum():N0} at points) · acknowledged {f.Acknowledged:N0} · " +
        $"lost {f.Findings.Lost} · half-applied {f.Findings.HalfApplied} · reader violations {f.Findings.ReaderViolations} · recovery {f.Recoveries.Format()}");

    /// <summary>A soak run's line: acknowledgements and the child's latest measurements.</summary>
    public static string SoakLine(CampaignFigures f)
    {
        var c = CultureInfo.InvariantCulture;
        string line = string.Create(c, $"[{Units.Seconds(f.Elapsed)}] acknowledged {f.Acknowledged:N0} · reader violations {f.Findings.ReaderViolations}");
        return f.LastSample is not { } s
            ? line
            : line + string.Create(c,
                $" · rss {Units.MiB(s.ResidentBytes)} · heap {Units.MiB(s.ManagedHeapBytes)} · scratch {Units.MiB(s.ScratchBytes)} · queue {s.MergerQueueLength} · journals {Units.MiB(s.JournalBytes)}");
    }

    public void Dispose()
    {
        lock (_gate)
            _stopped = true;
        _timer.Dispose();
    }

    private void Print()
    {
        lock (_gate)
        {
            if (_stopped)
                return;
            _writer.WriteLine(_line());
            _writer.Flush();
        }
    }
}
