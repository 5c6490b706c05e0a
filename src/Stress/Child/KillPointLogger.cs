using System.Diagnostics;
using Cairn.Stress.Protocol;
using Microsoft.Extensions.Logging;

namespace Cairn.Stress.Child;

/// <summary>
/// The logger a child opens its environments with when the parent planned a kill point: on the planned
/// occurrence of the point's event it says so and sends itself SIGKILL, on the engine's own thread, inside the
/// step that logged (see <see cref="KillPoint"/>). Every other event is ignored.
/// </summary>
internal sealed class KillPointLogger(KillPoint point, int occurrence, ChildOutput output) : ILoggerFactory, ILogger
{
    private int _seen;

    public ILogger CreateLogger(string categoryName) => this;

    public void AddProvider(ILoggerProvider provider)
    {
    }

    public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

    // Enabled for every level: the engine checks before it logs, and the points include debug events.
    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        if (eventId.Id != point.EventId || Interlocked.Increment(ref _seen) != occurrence)
            return;
        output.Say(ChildLines.Point(point.Name, occurrence));
        // SIGKILL on Unix: no finaliser, flush or close runs, as when the parent kills.
        Process.GetCurrentProcess().Kill();
        Thread.Sleep(Timeout.Infinite);
    }

    public void Dispose()
    {
    }
}
