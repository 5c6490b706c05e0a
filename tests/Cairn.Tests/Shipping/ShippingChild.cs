using System.Diagnostics;
using System.Globalization;
using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

/// <summary>
/// A running shipping child (ship-primary or ship-replica of tests/Cairn.TestChild) whose output is read as it comes,
/// so that neither child ever blocks on a full pipe while the test waits on the other. It keeps what the lines said:
/// acknowledged keys, the last transaction applied or spooled, the one it opened at and the one it stopped at.
/// </summary>
internal sealed class ShippingChild : IDisposable
{
    private readonly Process _process;
    private readonly Task<string> _error;
    private readonly Task _pump;
    private readonly HashSet<long> _acknowledged;

    // Guards the counters below and the waiters: the pump writes them, the test reads them.
    private readonly object _gate = new();
    private readonly List<(Func<ShippingChild, bool> Condition, TaskCompletionSource Done)> _waiters = [];
    private bool _ended;

    private ShippingChild(Process process, HashSet<long> acknowledged)
    {
        _process = process;
        _acknowledged = acknowledged;
        _error = process.StandardError.ReadToEndAsync();
        _pump = Task.Run(PumpAsync);
    }

    /// <summary>Starts <c>ship-primary</c>; its acknowledged keys go into <paramref name="acknowledged"/>.</summary>
    public static ShippingChild Primary(string primary, string spool, int round, long after, HashSet<long> acknowledged)
        => new(ChildProcess.Start("ship-primary", primary, spool, Invariant(round), Invariant(after)), acknowledged);

    /// <summary>Starts <c>ship-replica</c>.</summary>
    public static ShippingChild Replica(string replica, string spool) => new(ChildProcess.Start("ship-replica", replica, spool), []);

    /// <summary>The transaction it opened at (-1 until it said).</summary>
    public long Opened { get; private set; } = -1;

    /// <summary>Acknowledgements (primary) or applied batches (replica) it reported.</summary>
    public int Events { get; private set; }

    /// <summary>The last transaction it reported applied (replica) or spooled (primary); -1 before any.</summary>
    public long Last { get; private set; } = -1;

    /// <summary>The primary's last transaction once it stopped cleanly; -1 before.</summary>
    public long Stopped { get; private set; } = -1;

    /// <summary>Completes once <paramref name="condition"/> holds; fails (with the child's standard error) if the child's output ends first.</summary>
    public Task WaitUntil(Func<ShippingChild, bool> condition)
    {
        lock (_gate)
        {
            if (condition(this))
                return Task.CompletedTask;
            if (_ended)
                return Failed();
            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((condition, done));
            return done.Task;
        }
    }

    /// <summary>SIGKILLs it and waits for its output to end.</summary>
    public async Task KillAsync()
    {
        _process.Kill(entireProcessTree: true);
        await _process.WaitForExitAsync();
        await _pump;
    }

    /// <summary>Closes its standard input (a clean stop) and waits until it exits, successfully.</summary>
    public async Task StopAsync()
    {
        _process.StandardInput.Close();
        await _process.WaitForExitAsync();
        await _pump;
        Assert.True(_process.ExitCode == 0, $"the child exited with {_process.ExitCode}: {await _error}");
    }

    /// <summary>What was wrong with its output (a line out of place, the applied transaction going back), or null.</summary>
    public string? Problem { get; private set; }

    private async Task PumpAsync()
    {
        try
        {
            while (await _process.StandardOutput.ReadLineAsync() is { } line)
            {
                lock (_gate)
                {
                    Read(line);
                    for (int i = _waiters.Count - 1; i >= 0; i--)
                    {
                        if (_waiters[i].Condition(this))
                        {
                            _waiters[i].Done.SetResult();
                            _waiters.RemoveAt(i);
                        }
                    }
                }
            }
        }
        catch (Exception e) when (e is FormatException or InvalidOperationException)
        {
            Problem ??= e.Message;
        }
        lock (_gate)
        {
            _ended = true;
            foreach (var (_, done) in _waiters)
                _ = Failed().ContinueWith(t => done.SetException(t.Exception!.InnerExceptions), TaskScheduler.Default);
            _waiters.Clear();
        }
    }

    private void Read(string line)
    {
        int space = line.IndexOf(' ', StringComparison.Ordinal);
        long value = long.Parse(line.AsSpan(space + 1), CultureInfo.InvariantCulture);
        switch (line[..space])
        {
            case "opened":
                Opened = value;
                break;
            case "ack":
                lock (_acknowledged)
                    _acknowledged.Add(value);
                Events++;
                break;
            case "applied":
                if (value < Last)
                    Problem ??= $"the replica reported {value} applied after {Last}";
                Last = value;
                Events++;
                break;
            case "spooled":
                Last = value;
                break;
            case "stopped":
                Stopped = value;
                break;
            default:
                throw new InvalidOperationException($"unexpected line from the child: {line}");
        }
    }

    private async Task Failed()
        => throw new InvalidOperationException($"the child's output ended ({Problem ?? "no problem read"}; exit code {(_process.HasExited ? _process.ExitCode : -1)}): {await _error}");

    private static string Invariant(long value) => value.ToString(CultureInfo.InvariantCulture);

    public void Dispose()
    {
        if (!_process.HasExited)
            _process.Kill(entireProcessTree: true);
        _process.Dispose();
    }
}
