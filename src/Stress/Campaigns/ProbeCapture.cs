using Microsoft.Extensions.Logging;

namespace Cairn.Stress.Campaigns;

/// <summary>
/// The logger the parent opens environments with: it keeps what the engine's durability probe says at open
/// (events 1302 and 1303) and ignores everything else.
/// </summary>
internal sealed class ProbeCapture : ILoggerFactory, ILogger
{
    private const int DurabilityProbeEvent = 1302;
    private const int VolatileFileSystemEvent = 1303;

    private readonly Lock _gate = new();
    private FileSystemReport _report = FileSystemReport.NotProbed;
    private bool _volatile;

    public FileSystemReport Report
    {
        get
        {
            lock (_gate)
                return _report with { Volatile = _report.Volatile || _volatile };
        }
    }

    public ILogger CreateLogger(string categoryName) => this;

    public void AddProvider(ILoggerProvider provider)
    {
    }

    public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

    // The probe runs only when warnings are enabled, and logs its findings as information.
    public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Information;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        if (eventId.Id == VolatileFileSystemEvent)
        {
            lock (_gate)
                _volatile = true;
        }
        if (eventId.Id != DurabilityProbeEvent || state is not IReadOnlyList<KeyValuePair<string, object?>> values)
            return;
        var report = new FileSystemReport(true, Value<long>(values, "FileSystemType"), Value<bool>(values, "DirectIo"), Value<long>(values, "FreeBytes"), false);
        lock (_gate)
        {
            if (!_report.Probed)
                _report = report;
        }
    }

    public void Dispose()
    {
    }

    private static T Value<T>(IReadOnlyList<KeyValuePair<string, object?>> values, string name) where T : struct
    {
        foreach (var (key, value) in values)
        {
            if (key == name && value is T typed)
                return typed;
        }
        return default;
    }
}
