using Microsoft.Extensions.Logging;

namespace Cairn.Bench.Recovery;

/// <summary>
/// A logger factory that keeps what the engine logs during an open, so the survey can report the
/// engine's own recovery figures (event 1102: transactions, journal bytes, time) next to its own
/// measurements, and show every message. Events the engine does not log are simply absent.
/// </summary>
public sealed class EngineLogCapture : ILoggerFactory
{
    /// <summary>The engine's "recovery starting" event: the synced transaction, the first journal and the offset the replay reads from.</summary>
    public const int RecoveryStarting = 1100;
    /// <summary>The engine's "recovery completed" event (docs/design.md, Logging).</summary>
    public const int RecoveryCompleted = 1102;
    /// <summary>The engine's "recovery stages" event: the replay's time by stage (Debug).</summary>
    public const int RecoveryStages = 1106;

    private readonly List<Entry> _entries = [];
    private readonly Lock _gate = new();

    public sealed record Entry(LogLevel Level, EventId EventId, string Message, IReadOnlyList<KeyValuePair<string, object?>> Values)
    {
        public double? Number(string name)
        {
            foreach (var (key, value) in Values)
            {
                if (key == name && value is IConvertible convertible)
                    return convertible.ToDouble(System.Globalization.CultureInfo.InvariantCulture);
            }
            return null;
        }
    }

    public IReadOnlyList<Entry> Entries
    {
        get
        {
            lock (_gate)
                return [.. _entries];
        }
    }

    public Entry? Find(int eventId) => Entries.LastOrDefault(e => e.EventId.Id == eventId);

    public ILogger CreateLogger(string categoryName) => new Logger(this);

    public void AddProvider(ILoggerProvider provider)
    {
    }

    public void Dispose()
    {
    }

    private void Add(Entry entry)
    {
        lock (_gate)
            _entries.Add(entry);
    }

    private sealed class Logger(EngineLogCapture owner) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Debug;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            var values = state as IReadOnlyList<KeyValuePair<string, object?>> ?? [];
            owner.Add(new Entry(logLevel, eventId, formatter(state, exception), [.. values]));
        }
    }
}
