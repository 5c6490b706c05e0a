using System.Diagnostics;
using System.Globalization;
using Cairn.TestChild;
using Cairn.Tests.Durability;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// A running <c>shared-crash-writer</c> child (tests/Cairn.TestChild/SharedCrashWriterCommand.cs) as the
/// parent sees it: per environment, the last transaction it found on opening and every transaction it
/// acknowledged (in any order, each once, after that start), checked against the protocol as lines arrive.
/// </summary>
public sealed class SharedCrashWriterProcess : ChildWriterProcess
{
    private readonly TaskCompletionSource<bool> _started = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly long?[] _start;
    private readonly long[] _highestReported;
    private readonly long[] _acknowledged;
    private readonly HashSet<long>[] _acks;
    private readonly List<string> _protocolErrors = [];
    private int _starts;
    private bool _stopped;

    private SharedCrashWriterProcess(Process process, int environments)
        : base(process)
    {
        _start = new long?[environments];
        _highestReported = Enumerable.Repeat(-1L, environments).ToArray();
        _acknowledged = new long[environments];
        _acks = Enumerable.Range(0, environments).Select(_ => new HashSet<long>()).ToArray();
    }

    public static SharedCrashWriterProcess Start(string directory, long seed, SharedCrashWriterSettings settings)
        => new(ChildProcess.Start(["shared-crash-writer", directory, seed.ToString(CultureInfo.InvariantCulture), .. settings.ToArguments()]),
            settings.Environments);

    /// <summary>Completes once every environment reported its start; faults if the child ends before.</summary>
    public Task Started => _started.Task;

    public async Task<SharedCrashWriterOutcome> WaitForExitAsync(TimeSpan timeout)
    {
        var (exitCode, error) = await WaitForEndAsync(timeout);
        lock (Gate)
            return new SharedCrashWriterOutcome(exitCode, [.. _start], [.. _highestReported], [.. _acknowledged], _stopped, [.. _protocolErrors], error);
    }

    protected override async Task<string> DescribeEndAsync(TimeSpan timeout) => (await WaitForExitAsync(timeout)).ToString();

    protected override void OnOutputEnded() => FailUnlessDone(_started, $"the writer ended after {_starts} of {_start.Length} environments started");

    protected override void Handle(string line)
    {
        var parts = line.Split(' ');
        int k = parts.Length == 3 && int.TryParse(parts[1], CultureInfo.InvariantCulture, out int index) && index >= 0 && index < _start.Length ? index : -1;
        long number = k >= 0 && long.TryParse(parts[2], CultureInfo.InvariantCulture, out long n) ? n : -1;
        switch (parts[0])
        {
            case "start" when number >= 0 && _start[k] is null:
                _start[k] = number;
                _highestReported[k] = number;
                if (++_starts == _start.Length)
                    _started.TrySetResult(true);
                break;
            case "ack" when number >= 0 && _starts == _start.Length && !_stopped && number > _start[k] && _acks[k].Add(number):
                _highestReported[k] = Math.Max(_highestReported[k], number);
                _acknowledged[k]++;
                break;
            case "stopped" when parts.Length == 1 && _starts == _start.Length:
                _stopped = true;
                break;
            default:
                _protocolErrors.Add($"unexpected line '{line}' ({_starts} environments started)");
                break;
        }
    }
}

/// <summary>How a shared crash writer ended and what it reported, per environment (index 0 is the root).</summary>
/// <param name="Start">The last transaction each environment held on opening; null where the child did not get that far.</param>
/// <param name="HighestReported">The highest transaction acknowledged per environment, or its start if none (−1: never started).</param>
/// <param name="Acknowledged">How many transactions each environment acknowledged.</param>
public sealed record SharedCrashWriterOutcome(
    int ExitCode,
    long?[] Start,
    long[] HighestReported,
    long[] Acknowledged,
    bool Stopped,
    IReadOnlyList<string> ProtocolErrors,
    string StandardError)
{
    /// <summary>Whether the child ran until the kill and said nothing amiss.</summary>
    public bool WasKilledCleanly => ExitCode == ChildWriterProcess.KilledExitCode && !Stopped && ProtocolErrors.Count == 0 && StandardError.Length == 0;

    public override string ToString()
        => $"exit code {ExitCode}, per environment (start: acknowledged up to highest): " +
           string.Join(", ", Start.Select((s, k) => $"{k}: {s?.ToString(CultureInfo.InvariantCulture) ?? "not seen"}: {Acknowledged[k]} up to {HighestReported[k]}")) +
           (Stopped ? ", stopped" : "") +
           (ProtocolErrors.Count > 0 ? $", protocol errors: {string.Join("; ", ProtocolErrors)}" : "") +
           (StandardError.Length > 0 ? $", standard error:{System.Environment.NewLine}{StandardError}" : "");
}
