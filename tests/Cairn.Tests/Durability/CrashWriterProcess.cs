using System.Diagnostics;
using System.Globalization;
using Cairn.TestChild;
using Cairn.Tests.Support;

namespace Cairn.Tests.Durability;

/// <summary>
/// A running <c>crash-writer</c> child (tests/Cairn.TestChild/CrashWriterCommand.cs) as the parent test
/// sees it: its output lines parsed as they arrive, checked against the protocol, and the highest
/// transaction it acknowledged.
/// </summary>
public sealed class CrashWriterProcess : ChildWriterProcess
{
    private readonly TaskCompletionSource<long> _started = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly List<string> _protocolErrors = [];
    private readonly List<(long Count, TaskCompletionSource Reached)> _ackWaiters = [];
    private long? _start;
    private long _highestReported = -1;
    private long _acknowledged;
    private long? _stopped;

    // Merger mode (many callers): acknowledgements arrive in any order, each number once.
    private readonly HashSet<long>? _unorderedAcks;

    private CrashWriterProcess(Process process, bool unordered)
        : base(process)
    {
        _unorderedAcks = unordered ? [] : null;
    }

    public static CrashWriterProcess Start(string directory, long seed, CrashWriterSettings settings)
        => new(ChildProcess.Start(["crash-writer", directory, seed.ToString(CultureInfo.InvariantCulture), .. settings.ToArguments()]),
            unordered: settings.Callers is not null);

    /// <summary>The last transaction the child found on opening; faults if it ends without saying.</summary>
    public Task<long> Started => _started.Task;

    /// <summary>Completes once the child has acknowledged <paramref name="count"/> transactions in this run.</summary>
    public Task WaitForAcknowledgedAsync(long count)
    {
        lock (Gate)
        {
            if (_acknowledged >= count)
                return Task.CompletedTask;
            var reached = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _ackWaiters.Add((count, reached));
            return reached.Task;
        }
    }

    /// <summary>Waits for the process to end and for all of its output, and returns what it said.</summary>
    public async Task<CrashWriterOutcome> WaitForExitAsync(TimeSpan timeout)
    {
        var (exitCode, error) = await WaitForEndAsync(timeout);
        lock (Gate)
            return new CrashWriterOutcome(exitCode, _start, _highestReported, _acknowledged, _stopped, [.. _protocolErrors], error);
    }

    protected override async Task<string> DescribeEndAsync(TimeSpan timeout) => (await WaitForExitAsync(timeout)).ToString();

    protected override void OnOutputEnded()
    {
        FailUnlessDone(_started, "the crash writer ended before it started writing");
        foreach (var (_, reached) in _ackWaiters)
            reached.TrySetException(new InvalidOperationException($"the crash writer ended after {_acknowledged} acknowledgements"));
    }

    protected override void Handle(string line)
    {
        var parts = line.Split(' ');
        long number = parts.Length == 2 && long.TryParse(parts[1], CultureInfo.InvariantCulture, out var n) ? n : -1;
        switch (parts[0])
        {
            case "start" when number >= 0 && _start is null:
                _start = number;
                _highestReported = number;
                _started.TrySetResult(number);
                break;
            case "ack" when _start is not null && _stopped is null &&
                            (_unorderedAcks is null ? number == _highestReported + 1 : number > _start && _unorderedAcks.Add(number)):
                _highestReported = Math.Max(_highestReported, number);
                _acknowledged++;
                foreach (var (count, reached) in _ackWaiters)
                    if (_acknowledged >= count)
                        reached.TrySetResult();
                break;
            case "stopped" when _start is not null && (number == _highestReported || (_unorderedAcks is not null && number >= _highestReported)):
                _stopped = number;
                break;
            default:
                _protocolErrors.Add($"unexpected line '{line}' (start {_start?.ToString(CultureInfo.InvariantCulture) ?? "not seen"}, " +
                    $"last reported {_highestReported})");
                break;
        }
    }
}

/// <summary>How a crash writer ended and what it reported.</summary>
/// <param name="Start">The last transaction it found on opening; null if it never got that far.</param>
/// <param name="HighestReported">The highest transaction it acknowledged, or <paramref name="Start"/> if none (−1 if it never started).</param>
/// <param name="Acknowledged">How many transactions it acknowledged.</param>
/// <param name="Stopped">The transaction it stopped cleanly at, if it did.</param>
public sealed record CrashWriterOutcome(
    int ExitCode,
    long? Start,
    long HighestReported,
    long Acknowledged,
    long? Stopped,
    IReadOnlyList<string> ProtocolErrors,
    string StandardError)
{
    /// <summary>A one-paragraph account for failure messages.</summary>
    public override string ToString()
        => $"exit code {ExitCode}, start {Start?.ToString(CultureInfo.InvariantCulture) ?? "not seen"}, {Acknowledged} acknowledged up to {HighestReported}" +
           (Stopped is { } s ? $", stopped at {s}" : "") +
           (ProtocolErrors.Count > 0 ? $", protocol errors: {string.Join("; ", ProtocolErrors)}" : "") +
           (StandardError.Length > 0 ? $", standard error:{System.Environment.NewLine}{StandardError}" : "");
}
