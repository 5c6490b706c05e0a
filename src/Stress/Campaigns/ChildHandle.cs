using System.Diagnostics;
using Cairn.Stress.Protocol;

namespace Cairn.Stress.Campaigns;

/// <summary>
/// A running child process: started through the host's factory, its standard output fed to a
/// <see cref="ChildTranscript"/> as it arrives, its standard error kept for failure messages.
/// </summary>
internal sealed class ChildHandle : IDisposable
{
    private readonly Process _process;
    private readonly Task _output;
    private readonly Task<string> _error;

    private ChildHandle(Process process, ChildTranscript transcript)
    {
        _process = process;
        Transcript = transcript;
        _error = process.StandardError.ReadToEndAsync();
        _output = Task.Run(ReadOutputAsync);
    }

    public ChildTranscript Transcript { get; }

    /// <summary>Completes when the child's output ends, which is when it has died or exited.</summary>
    public Task Ended => _output;

    public static ChildHandle Start(Func<IReadOnlyList<string>, ProcessStartInfo> startInfo, ChildSettings settings)
    {
        var info = startInfo(settings.ToArguments());
        // The protocol runs over these three pipes, whatever the host's factory set.
        info.UseShellExecute = false;
        info.RedirectStandardInput = true;
        info.RedirectStandardOutput = true;
        info.RedirectStandardError = true;
        var process = Process.Start(info) ?? throw new InvalidOperationException($"could not start the stress child '{info.FileName}'");
        return new ChildHandle(process, new ChildTranscript(settings.Environments));
    }

    /// <summary>SIGKILL: no chance to flush, sync or close anything.</summary>
    public void Kill()
    {
        try
        {
            _process.Kill();
        }
        catch (InvalidOperationException)
        {
            // It died already (at its kill point, or of a failure the transcript shows).
        }
    }

    /// <summary>Asks for a clean stop: the child finishes what it is committing, closes its environments and exits 0.</summary>
    public void RequestStop()
    {
        try
        {
            _process.StandardInput.WriteLine("stop");
            _process.StandardInput.Flush();
        }
        catch (IOException)
        {
            // It is gone; the transcript says how.
        }
    }

    /// <summary>Waits for <paramref name="line"/>; false if the child died first or <paramref name="timeout"/> passed (it is killed then).</summary>
    public async Task<bool> AwaitAsync(Task line, TimeSpan timeout)
    {
        try
        {
            await line.WaitAsync(timeout);
            return true;
        }
        catch (Exception e) when (e is TimeoutException or InvalidOperationException)
        {
            Kill();
            return false;
        }
    }

    /// <summary>Waits for the process to end and for all of its output; kills it first if <paramref name="timeout"/> passes.</summary>
    public async Task<ChildRun> WaitForExitAsync(TimeSpan timeout)
    {
        try
        {
            await Task.WhenAll(_process.WaitForExitAsync(), _output).WaitAsync(timeout);
        }
        catch (TimeoutException)
        {
            Kill();
            await Task.WhenAll(_process.WaitForExitAsync(), _output);
            return Transcript.Finish(_process.ExitCode, $"(the parent killed it: it did not end within {timeout}) " + await _error);
        }
        return Transcript.Finish(_process.ExitCode, await _error);
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            Kill();
            _process.WaitForExit();
        }
        _process.Dispose();
    }

    private async Task ReadOutputAsync()
    {
        string? line;
        while ((line = await _process.StandardOutput.ReadLineAsync()) is not null)
            Transcript.Handle(line);
        // The pipe closes when the process dies: whatever it printed has been read.
        Transcript.End();
    }
}
