using System.Diagnostics;
using Xunit.Sdk;

namespace Cairn.Tests.Durability;

/// <summary>
/// A writer child process the crash tests kill (tests/Cairn.TestChild): its standard output read line by line
/// as it arrives and handed to <see cref="Handle"/> under <see cref="Gate"/>, its standard error kept for
/// failure messages, and the <c>opening</c> line every writer prints before it opens its environments.
/// </summary>
public abstract class ChildWriterProcess : IDisposable
{
    /// <summary>What .NET reports for a process ended by SIGKILL (128 + 9).</summary>
    public const int KilledExitCode = 137;

    private readonly Process _process;
    private readonly Task _output;
    private readonly Task<string> _error;
    private readonly TaskCompletionSource _opening = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Stopwatch _sinceStart = Stopwatch.StartNew();

    protected ChildWriterProcess(Process process)
    {
        _process = process;
        _error = process.StandardError.ReadToEndAsync();
        _output = Task.Run(ReadOutputAsync);
    }

    /// <summary>Guards what <see cref="Handle"/> parses.</summary>
    protected object Gate { get; } = new();

    /// <summary>Completes when the child is about to open the environment.</summary>
    public Task Opening => _opening.Task;

    public bool HasExited => _process.HasExited;

    /// <summary>SIGKILL: no chance to flush, sync or close anything.</summary>
    public void Kill() => _process.Kill();

    /// <summary>Asks for a clean stop: the child finishes what it is committing, disposes its environments and exits 0.</summary>
    public void RequestStop()
    {
        _process.StandardInput.WriteLine("stop");
        _process.StandardInput.Flush();
    }

    /// <summary>
    /// Kills the child as <paramref name="plan"/> says: once it is about to open its environments (a kill aimed at
    /// opening and recovery) or once <paramref name="started"/> completes, after the plan's delay. Returns the
    /// time from starting the child to <paramref name="started"/> (start-up, opening, recovery), null for a kill
    /// aimed at opening.
    /// </summary>
    public async Task<TimeSpan?> KillAsPlannedAsync(KillPlan plan, Task started, TimeSpan timeout)
    {
        TimeSpan? startup = null;
        if (plan.DuringOpening)
            await AwaitOrExplainAsync(Opening, timeout);
        else
        {
            await AwaitOrExplainAsync(started, timeout);
            startup = _sinceStart.Elapsed;
        }
        if (plan.Delay > TimeSpan.Zero)
            await Task.Delay(plan.Delay);
        Kill();
        return startup;
    }

    /// <summary>Waits for a line from the child; if it dies or hangs first, kills it and fails with everything it said, standard error included.</summary>
    public async Task AwaitOrExplainAsync(Task line, TimeSpan timeout)
    {
        try
        {
            await line.WaitAsync(timeout);
        }
        catch (Exception e) when (e is TimeoutException or InvalidOperationException)
        {
            if (!HasExited)
                Kill();
            throw new XunitException($"{e.Message}: {await DescribeEndAsync(timeout)}");
        }
    }

    /// <summary>Waits for the process to end and describes what it said, for a failure message.</summary>
    protected abstract Task<string> DescribeEndAsync(TimeSpan timeout);

    /// <summary>Under <see cref="Gate"/>: one line of the child's output other than <c>opening</c>.</summary>
    protected abstract void Handle(string line);

    /// <summary>Under <see cref="Gate"/>, once the output ended (the process is gone): fail whatever still waits for a line.</summary>
    protected abstract void OnOutputEnded();

    /// <summary>
    /// Fails <paramref name="waiting"/> with <paramref name="message"/> if no line completed it. A kill aimed at the
    /// opening leaves such tasks faulted with nobody waiting, which is expected: reading Exception marks them
    /// observed, so they do not surface later as unobserved task exceptions.
    /// </summary>
    protected static void FailUnlessDone<T>(TaskCompletionSource<T> waiting, string message)
    {
        if (waiting.TrySetException(new InvalidOperationException(message)))
            _ = waiting.Task.Exception;
    }

    /// <summary>Waits for the process to end and for all of its output; returns its exit code and standard error.</summary>
    protected async Task<(int ExitCode, string StandardError)> WaitForEndAsync(TimeSpan timeout)
    {
        using (var cancel = new CancellationTokenSource(timeout))
        {
            try
            {
                await _process.WaitForExitAsync(cancel.Token);
                await _output.WaitAsync(cancel.Token);
            }
            catch (OperationCanceledException)
            {
                throw new TimeoutException($"the writer child did not end within {timeout}");
            }
        }
        return (_process.ExitCode, await _error);
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.Kill();
            _process.WaitForExit();
        }
        _process.Dispose();
    }

    private async Task ReadOutputAsync()
    {
        string? line;
        while ((line = await _process.StandardOutput.ReadLineAsync()) is not null)
        {
            if (line == "opening")
            {
                _opening.TrySetResult();
                continue;
            }
            lock (Gate)
                Handle(line);
        }
        // The pipe closes when the process dies: whatever it printed has been read.
        if (_opening.TrySetException(new InvalidOperationException("the writer child ended before opening the environment")))
            _ = _opening.Task.Exception;
        lock (Gate)
            OnOutputEnded();
    }
}
