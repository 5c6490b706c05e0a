using Microsoft.Extensions.Logging;

namespace Cairn.Tests.Support;

/// <summary>Collects what the engine logs, so tests can check that an event happened (and with what).</summary>
public sealed class CapturingLoggerFactory : ILoggerFactory
{
    private readonly List<LogRecord> _records = [];

    public sealed record LogRecord(EventId EventId, LogLevel Level, string Message, Exception? Exception);

    public IReadOnlyList<LogRecord> Records
    {
        get
        {
            lock (_records)
                return _records.ToArray();
        }
    }

    public IEnumerable<LogRecord> WithEventId(int id) => Records.Where(r => r.EventId.Id == id);

    public ILogger CreateLogger(string categoryName) => new CapturingLogger(this);

    public void AddProvider(ILoggerProvider provider) => throw new NotSupportedException();

    public void Dispose()
    {
    }

    private sealed class CapturingLogger(CapturingLoggerFactory owner) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            lock (owner._records)
                owner._records.Add(new LogRecord(eventId, logLevel, formatter(state, exception), exception));
        }
    }
}
