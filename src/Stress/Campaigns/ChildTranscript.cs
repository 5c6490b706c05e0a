using System.Diagnostics;
using Cairn.Stress.Protocol;

namespace Cairn.Stress.Campaigns;

/// <summary>
/// A child's output as the parent reads it, line by line as it arrives: checked against the protocol (one start
/// per environment, acknowledgements after it, each transaction once), with tasks for the lines a kill waits for.
/// Fed by a running child or, in tests, by hand.
/// </summary>
internal sealed class ChildTranscript
{
    private readonly Lock _gate = new();
    private readonly TaskCompletionSource _opening = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _started = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly List<(long Count, TaskCompletionSource Reached)> _ackWaiters = [];
    private readonly long?[] _start;
    private readonly long[] _highest;
    private readonly long[] _acknowledged;
    private readonly HashSet<long>[] _acks;
    private readonly List<string> _violations = [];
    private readonly List<string> _protocolErrors = [];
    private readonly List<SoakSample> _samples = [];
    private string? _point;
    private bool _stopped;
    private int _starts;
    private long _total;
    private readonly long _createdAt = Stopwatch.GetTimestamp();
    private long _openingAt;
    private long _startedAt;
    private long _endedAt;

    public ChildTranscript(int environments)
    {
        _start = new long?[environments];
        _highest = [.. Enumerable.Repeat(-1L, environments)];
        _acknowledged = new long[environments];
        _acks = [.. Enumerable.Range(0, environments).Select(_ => new HashSet<long>())];
    }

    /// <summary>Completes when the child is about to open its environments.</summary>
    public Task Opening => _opening.Task;

    /// <summary>Completes once every environment reported its start.</summary>
    public Task Started => _started.Task;

    /// <summary>Acknowledgements so far (read by the progress line while the child runs).</summary>
    public long Acknowledged => Interlocked.Read(ref _total);

    /// <summary>The newest soak sample, if any.</summary>
    public SoakSample? LastSample
    {
        get
        {
            lock (_gate)
                return _samples.Count > 0 ? _samples[^1] : null;
        }
    }

    /// <summary>Completes once the child has acknowledged <paramref name="count"/> transactions in all.</summary>
    public Task WhenAcknowledged(long count)
    {
        lock (_gate)
        {
            if (_total >= count)
                return Task.CompletedTask;
            var reached = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _ackWaiters.Add((count, reached));
            return reached.Task;
        }
    }

    public void Handle(string line)
    {
        var parsed = ChildLines.Parse(line);
        lock (_gate)
        {
            bool known = parsed.Environment >= 0 && parsed.Environment < _start.Length;
            int k = parsed.Environment;
            switch (parsed.Kind)
            {
                case ChildLineKind.Opening when !_opening.Task.IsCompleted:
                    _openingAt = Stopwatch.GetTimestamp();
                    _opening.TrySetResult();
                    return;
                case ChildLineKind.Start when known && _start[k] is null:
                    _start[k] = parsed.Number;
                    _highest[k] = parsed.Number;
                    if (++_starts == _start.Length)
                    {
                        _startedAt = Stopwatch.GetTimestamp();
                        _started.TrySetResult();
                    }
                    return;
                case ChildLineKind.Ack when known && _starts == _start.Length && !_stopped && parsed.Number > _start[k] && _acks[k].Add(parsed.Number):
                    _highest[k] = Math.Max(_highest[k], parsed.Number);
                    _acknowledged[k]++;
                    Interlocked.Increment(ref _total);
                    foreach (var (count, reached) in _ackWaiters)
                    {
                        if (_total >= count)
                            reached.TrySetResult();
                    }
                    return;
                case ChildLineKind.Violation when known:
                    _violations.Add($"{EnvironmentLayout.Name(k)}: {parsed.Text}");
                    return;
                case ChildLineKind.Point when _point is null:
                    _point = $"{parsed.Text} #{parsed.Number}";
                    return;
                case ChildLineKind.Sample:
                    _samples.Add(parsed.Sample! with { Acknowledged = _total });
                    return;
                case ChildLineKind.Stopped when _starts == _start.Length && !_stopped:
                    _stopped = true;
                    return;
                default:
                    _protocolErrors.Add($"unexpected line '{line}' ({_starts} of {_start.Length} environments started)");
                    return;
            }
        }
    }

    /// <summary>The output ended (the process is gone): whatever still waits for a line learns it will not come.</summary>
    public void End()
    {
        lock (_gate)
        {
            _endedAt = Stopwatch.GetTimestamp();
            Fail(_opening, "the child ended before opening its environments");
            Fail(_started, $"the child ended after {_starts} of {_start.Length} environments started");
            foreach (var (_, reached) in _ackWaiters)
                Fail(reached, $"the child ended after {_total} acknowledgements");
        }
    }

    public ChildRun Finish(int exitCode, string standardError)
    {
        lock (_gate)
        {
            var writing = _startedAt == 0 || _endedAt < _startedAt ? TimeSpan.Zero : Stopwatch.GetElapsedTime(_startedAt, _endedAt);
            TimeSpan? launch = _openingAt == 0 ? null : Stopwatch.GetElapsedTime(_createdAt, _openingAt);
            TimeSpan? opening = _startedAt == 0 ? null : Stopwatch.GetElapsedTime(_openingAt, _startedAt);
            return new ChildRun(exitCode, [.. _start], [.. _highest], [.. _acknowledged], [.. _violations], _point, _stopped,
                [.. _protocolErrors], standardError.Trim(), launch, opening, writing, [.. _samples]);
        }
    }

    /// <summary>
    /// A kill aimed at opening leaves later lines' tasks failed with nobody waiting, which is expected: reading
    /// Exception marks them observed, so they do not surface later as unobserved task exceptions.
    /// </summary>
    private static void Fail(TaskCompletionSource waiting, string message)
    {
        if (waiting.TrySetException(new InvalidOperationException(message)))
            _ = waiting.Task.Exception;
    }
}
