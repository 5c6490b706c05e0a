using System.Diagnostics;
using System.Globalization;

namespace Cairn.Cli;

/// <summary>
/// Progress of one piece of work on standard error, once it has taken longer than the context's delay: on a
/// terminal one line rewritten twice a second, elsewhere a line every ten seconds; and when it ends, how long it
/// took. Work that ends sooner prints nothing.
/// </summary>
internal sealed class Progress : IDisposable
{
    private static readonly TimeSpan TerminalInterval = TimeSpan.FromMilliseconds(500);
    private static readonly TimeSpan LogInterval = TimeSpan.FromSeconds(10);

    private readonly CliContext _context;
    private readonly string _activity;
    private readonly Func<string>? _detail;
    private readonly long _started = Stopwatch.GetTimestamp();
    private readonly Lock _gate = new();
    private readonly Timer _timer;
    private bool _shown;
    private bool _ended;

    private Progress(CliContext context, string activity, Func<string>? detail)
    {
        _context = context;
        _activity = activity;
        _detail = detail;
        var interval = context.ErrorIsTerminal ? TerminalInterval : LogInterval;
        if (context.ProgressDelay <= TimeSpan.Zero)
        {
            // Shown at once, not when the timer first fires: a test sees it whatever the scheduling.
            Show();
            _timer = new Timer(_ => Show(), null, interval, interval);
        }
        else
        {
            _timer = new Timer(_ => Show(), null, context.ProgressDelay, interval);
        }
    }

    /// <param name="detail">How far the work has come ("1,200,000 entries"), asked each time progress is shown.</param>
    public static Progress Start(CliContext context, string activity, Func<string>? detail = null) => new(context, activity, detail);

    public void Dispose()
    {
        _timer.Dispose();
        lock (_gate)
        {
            _ended = true;
            if (!_shown)
                return;
            string line = $"cairn: {_activity}: done in {Elapsed()}{Detail()}";
            _context.Error.Write(_context.ErrorIsTerminal ? "\r\x1b[K" + line + "\n" : line + "\n");
        }
    }

    private void Show()
    {
        lock (_gate)
        {
            if (_ended)
                return;
            _shown = true;
            string line = $"cairn: {_activity}... {Elapsed()}{Detail()}";
            _context.Error.Write(_context.ErrorIsTerminal ? "\r\x1b[K" + line : line + "\n");
        }
    }

    private string Elapsed() => Stopwatch.GetElapsedTime(_started).TotalSeconds.ToString("F1", CultureInfo.InvariantCulture) + " s";

    private string Detail() => _detail is null ? "" : ", " + _detail();
}
