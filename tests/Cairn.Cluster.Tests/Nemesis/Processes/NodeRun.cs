using System.Diagnostics;

namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>
/// One start of a node: the process, started through setsid(1) so it leads a process group of its own (a signal
/// to the group reaches whatever the node started too, and nothing of the test's), and its output copied to files.
/// </summary>
internal sealed class NodeRun
{
    private readonly Process process;
    private readonly Task copyingOutput;
    private readonly ulong startTime;

    private NodeRun(Process process, string outputPath, string errorPath, ulong startTime)
    {
        this.process = process;
        this.startTime = startTime;
        Pid = process.Id;
        OutputPath = outputPath;
        ErrorPath = errorPath;
        copyingOutput = Task.WhenAll(
            CopyAsync(process.StandardOutput.BaseStream, outputPath),
            CopyAsync(process.StandardError.BaseStream, errorPath));
        Exited = ExitedWithAllOutputAsync();
    }

    /// <summary>The node's pid, which is also its process group's id.</summary>
    public int Pid { get; }

    public string OutputPath { get; }

    public string ErrorPath { get; }

    /// <summary>
    /// Completes once the node has exited, been reaped, and its output has reached its end, so the tail a failure
    /// message reads is complete (children the node left running and holding its output delay this until they end).
    /// </summary>
    public Task Exited { get; }

    public bool HasExited => Exited.IsCompleted;

    /// <summary>The exit code once <see cref="Exited"/> completed (128 + the signal for a killed node).</summary>
    public int ExitCode { get; private set; }

    /// <summary>
    /// Starts <paramref name="command"/>. Returns once the node leads its own group: until setsid has run in the
    /// child, a group signal would miss it.
    /// </summary>
    public static async Task<NodeRun> StartAsync(NodeCommand command, string outputPath, string errorPath)
    {
        var start = new ProcessStartInfo("setsid")
        {
            WorkingDirectory = command.WorkingDirectory,
            RedirectStandardInput = true, // kept open: a node may take its end of file as "the test is gone"
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(command.Executable);
        foreach (var argument in command.Arguments)
            start.ArgumentList.Add(argument);
        foreach (var (name, value) in command.Environment ?? new Dictionary<string, string?>())
            start.Environment[name] = value;

        var process = Process.Start(start) ?? throw new InvalidOperationException($"{command} did not start");
        LiveNodeRuns.Add(process.Id);
        ProcStat? stat = null;
        await Eventually.HoldsAsync(
            () => process.HasExited || (stat = ProcStat.Read(process.Id)) is { } s && s.ProcessGroup == process.Id,
            () => $"{command} (pid {process.Id}) to lead its own process group");
        var run = new NodeRun(process, outputPath, errorPath, stat?.StartTime ?? 0);
        if (process.HasExited)
            LiveNodeRuns.Remove(process.Id); // setsid failed or the node exited at once: the caller reports it
        return run;
    }

    /// <summary>True while this run's process exists (running, stopped or a zombie not yet reaped), not a later one with its pid.</summary>
    public bool ProcessExists => ProcStat.Read(Pid) is { } stat && stat.StartTime == startTime;

    /// <summary>SIGKILLs the whole group and returns once the node is reaped, no member of its group still runs, and its output is complete.</summary>
    public async Task KillAsync()
    {
        PosixSignals.SendToGroup(Pid, PosixSignals.Kill);
        await process.WaitForExitAsync();
        // Children the node started die with the group, but apart from it: wait for each, so none outlives the test.
        await Eventually.HoldsAsync(
            () => ProcStat.LiveInGroup(Pid).Count == 0,
            () => $"the processes of node group {Pid} to die: {string.Join(", ", ProcStat.LiveInGroup(Pid))}");
        LiveNodeRuns.Remove(Pid);
        // The output pipes reach their end once every writer is dead; one that left the group would hold them open.
        try
        {
            await Exited.WaitAsync(Eventually.HangDeadline);
        }
        catch (TimeoutException)
        {
            throw new TimeoutException($"Node group {Pid} is dead but its output is still open after {Eventually.HangDeadline}: a process outside the group holds it.");
        }
        process.Dispose();
    }

    /// <summary>SIGSTOPs the group and returns once the node's state is 'T' (stopped).</summary>
    public Task StopAsync()
    {
        PosixSignals.SendToGroup(Pid, PosixSignals.Stop);
        return Eventually.HoldsAsync(
            () => HasExited || ProcStat.LiveInGroup(Pid).All(p => p.IsStopped),
            () => $"node group {Pid} to stop: {string.Join(", ", ProcStat.LiveInGroup(Pid))}");
    }

    /// <summary>SIGCONTs the group and returns once the node is no longer stopped.</summary>
    public Task ContinueAsync()
    {
        PosixSignals.SendToGroup(Pid, PosixSignals.Continue);
        return Eventually.HoldsAsync(
            () => HasExited || ProcStat.LiveInGroup(Pid).All(p => !p.IsStopped),
            () => $"node group {Pid} to continue: {string.Join(", ", ProcStat.LiveInGroup(Pid))}");
    }

    /// <summary>What the node printed last, on both streams, for a failure message.</summary>
    public string Tail() => $"stdout ({OutputPath}):\n{OutputTail.Of(OutputPath)}\nstderr ({ErrorPath}):\n{OutputTail.Of(ErrorPath)}";

    private async Task ExitedWithAllOutputAsync()
    {
        await process.WaitForExitAsync();
        ExitCode = process.ExitCode;
        await copyingOutput;
    }

    private static async Task CopyAsync(Stream from, string path)
    {
        // Unbuffered, so the file holds everything the node wrote so far whenever a failure message reads its tail.
        await using var file = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete, bufferSize: 0, useAsync: true);
        await from.CopyToAsync(file);
    }
}
