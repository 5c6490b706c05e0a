using Cairn.Cluster.NodeHost;
using Cairn.Cluster.Tests.Nemesis.Schedule;

namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>
/// A node as a process of its own that the nemesis kills (SIGKILL), pauses (SIGSTOP), resumes (SIGCONT) and
/// restarts with the same command line. Each start's output goes to <c>&lt;name&gt;.&lt;run&gt;.stdout/.stderr</c>
/// in the output folder; failures carry the last lines. Disposal kills whatever is still alive, paused or not.
/// A killed node's file locks can outlive it while the kernel tears down its io_uring (the engine tests'
/// <c>KilledProcess</c>): whatever reopens its files after <see cref="KillAsync"/> must wait for the lock.
/// </summary>
public sealed class NodeProcess : IProcessNemesis, IAsyncDisposable
{
    // Serialises the nemesis's operations on this node (a campaign's runner and its final cleanup may overlap); guards run and killedByNemesis.
    private readonly SemaphoreSlim gate = new(1, 1);
    private readonly string outputFolder;
    private NodeRun run;
    private bool killedByNemesis;
    private bool paused;
    private bool disposed;

    private NodeProcess(string name, NodeCommand command, string outputFolder, NodeRun run)
    {
        Name = name;
        Command = command;
        this.outputFolder = outputFolder;
        this.run = run;
    }

    public string Name { get; }

    public NodeCommand Command { get; }

    /// <summary>How many times the node has been started (1 after <see cref="StartAsync"/>).</summary>
    public int Runs { get; private set; } = 1;

    /// <summary>The current run's pid (also its process group).</summary>
    public int Pid => run.Pid;

    public string OutputPath => run.OutputPath;

    public string ErrorPath => run.ErrorPath;

    public NodeProcessState State
        => killedByNemesis ? NodeProcessState.Killed
            : run.HasExited ? NodeProcessState.Exited
            : paused ? NodeProcessState.Paused
            : NodeProcessState.Running;

    /// <summary>Starts <paramref name="command"/> as node <paramref name="name"/>, its output in <paramref name="outputFolder"/>.</summary>
    public static async Task<NodeProcess> StartAsync(string name, NodeCommand command, string outputFolder)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentNullException.ThrowIfNull(command);
        Directory.CreateDirectory(outputFolder);
        var run = await StartRunAsync(name, command, outputFolder, 1);
        return new NodeProcess(name, command, outputFolder, run);
    }

    /// <summary>
    /// The node ended itself as fail-stop (<see cref="NodeHostExitCodes.IsFailStop"/>: its state machine failed, its
    /// start was refused, or SIGBUS): not a crash, but a node for its supervisor to start again (<see cref="RestartIfFailStoppedAsync"/>).
    /// </summary>
    public bool IsFailStopped => State == NodeProcessState.Exited
        && (NodeHostExitCodes.IsFailStop(run.ExitCode) || DiskMayFill && DiedOfLogPageFault());

    /// <summary>
    /// Set where the nemesis fills this node's disk: DotNext's WriteAheadLog maps its files over sparse space, so a
    /// full disk faults the page it writes (SIGBUS), which .NET reports as a fatal AccessViolationException and an
    /// abort (134). Elsewhere such a death is a crash the campaign reports.
    /// </summary>
    public bool DiskMayFill { get; set; }

    /// <summary>How many times the supervisor started the node again after a fail-stop.</summary>
    public int FailStopRestarts { get; private set; }

    private bool DiedOfLogPageFault()
    {
        if (run.ExitCode != NodeHostExitCodes.Aborted || !File.Exists(run.ErrorPath))
            return false;
        var error = File.ReadAllText(run.ErrorPath);
        return error.Contains("System.AccessViolationException", StringComparison.Ordinal)
            && error.Contains("DotNext.Net.Cluster.Consensus.Raft.StateMachine.WriteAheadLog", StringComparison.Ordinal);
    }

    /// <summary>Throws <see cref="NodeProcessExitedException"/> if the node exited by itself other than as fail-stop.</summary>
    public void ThrowIfExited()
    {
        if (State == NodeProcessState.Exited && !IsFailStopped)
            throw new NodeProcessExitedException(Name, run.ExitCode, run.Tail());
    }

    /// <summary>As a supervisor (systemd, Kubernetes) does: starts a fail-stopped node again with the same command line. False if it was not fail-stopped.</summary>
    public async Task<bool> RestartIfFailStoppedAsync()
    {
        await using var _ = await LockAsync();
        if (!IsFailStopped)
            return false;
        run = await StartRunAsync(Name, Command, outputFolder, Runs + 1);
        Runs++;
        FailStopRestarts++;
        return true;
    }

    /// <summary>The last lines the current run printed, for a campaign's failure message.</summary>
    public string OutputTail() => run.Tail();

    /// <summary>SIGKILL; returns once the node and everything it started are dead and reaped.</summary>
    public async Task KillAsync()
    {
        await using var _ = await LockAsync();
        ThrowIfExited();
        if (killedByNemesis)
            throw new InvalidOperationException($"Node {Name} is already killed.");
        if (!IsFailStopped)
            await run.KillAsync();
        killedByNemesis = true;
        paused = false;
    }

    /// <summary>SIGSTOP; returns once the kernel shows the node stopped.</summary>
    public async Task PauseAsync()
    {
        await using var _ = await LockAsync();
        if (IsFailStopped)
        {
            // Down already, which is at least as stopped as a pause; resuming it is a no-op (the supervisor restarts it).
            paused = true;
            return;
        }

        ThrowIfNotRunning("pause");
        await run.StopAsync();
        ThrowIfExited();
        paused = true;
    }

    /// <summary>SIGCONT; returns once the kernel shows the node running again.</summary>
    public async Task ResumeAsync()
    {
        await using var _ = await LockAsync();
        ThrowIfExited();
        if (!paused)
            throw new InvalidOperationException($"Node {Name} is not paused ({State}).");
        if (!run.HasExited)
            await run.ContinueAsync(); // SIGCONT also to a run the supervisor started while the node was marked paused: harmless
        ThrowIfExited();
        paused = false;
    }

    /// <summary>Starts the node again with the same command line; a node still alive is killed first.</summary>
    public async Task RestartAsync()
    {
        await using var _ = await LockAsync();
        ThrowIfExited();
        if (!killedByNemesis)
            await run.KillAsync();
        run = await StartRunAsync(Name, Command, outputFolder, Runs + 1);
        Runs++;
        killedByNemesis = false;
        paused = false;
        ThrowIfExited();
    }

    public async ValueTask DisposeAsync()
    {
        await gate.WaitAsync();
        try
        {
            if (disposed)
                return;
            disposed = true;
            if (!killedByNemesis)
                await run.KillAsync(); // SIGKILL ends a stopped process too; an exited one leaves its children to kill
        }
        finally
        {
            gate.Release();
        }
    }

    public override string ToString() => $"node {Name} (pid {Pid}, run {Runs}, {State})";

    private static async Task<NodeRun> StartRunAsync(string name, NodeCommand command, string outputFolder, int number)
        => await NodeRun.StartAsync(
            command,
            Path.Combine(outputFolder, $"{name}.{number}.stdout"),
            Path.Combine(outputFolder, $"{name}.{number}.stderr"));

    private void ThrowIfNotRunning(string operation)
    {
        ThrowIfExited();
        if (State != NodeProcessState.Running)
            throw new InvalidOperationException($"Cannot {operation} node {Name}: it is {State}.");
    }

    private async Task<Releaser> LockAsync()
    {
        await gate.WaitAsync();
        if (disposed)
        {
            gate.Release();
            throw new ObjectDisposedException($"node {Name}");
        }
        return new Releaser(gate);
    }

    private readonly struct Releaser(SemaphoreSlim gate) : IAsyncDisposable
    {
        public ValueTask DisposeAsync()
        {
            gate.Release();
            return ValueTask.CompletedTask;
        }
    }
}
