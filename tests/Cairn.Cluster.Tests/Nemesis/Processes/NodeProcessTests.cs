using Cairn.Tests.Support;

namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>The process nemesis on stand-in nodes (<see cref="CounterNode"/>): each state change waited for, never timed.</summary>
public sealed class NodeProcessTests
{
    [Fact]
    public async Task Pause_stops_progress_and_resume_starts_it_again()
    {
        using var dir = new TestDirectory("nemesis-pause");
        string marker = Guid.NewGuid().ToString("N");
        string counter = dir.File("node.count"), control = dir.File("control.count");
        await using var node = await NodeProcess.StartAsync("node", CounterNode.Command(dir, counter, marker), dir.Path);
        await using var witness = await NodeProcess.StartAsync("witness", CounterNode.Command(dir, control, marker), dir.Path);
        await Eventually.HoldsAsync(() => CounterNode.Count(counter) >= 3, () => "the node to count");

        await node.PauseAsync();
        Assert.Equal(NodeProcessState.Paused, node.State);
        Assert.All(ProcStat.LiveInGroup(node.Pid), p => Assert.Equal('T', p.State));
        int atPause = CounterNode.Count(counter);
        // The witness keeps counting: 50 of its lines is time in which the node, were it running, would have counted too.
        int witnessAtPause = CounterNode.Count(control);
        await Eventually.HoldsAsync(() => CounterNode.Count(control) >= witnessAtPause + 50, () => "the witness to count on");
        Assert.Equal(atPause, CounterNode.Count(counter));

        await node.ResumeAsync();
        Assert.Equal(NodeProcessState.Running, node.State);
        Assert.NotEqual('T', ProcStat.Read(node.Pid)!.Value.State);
        await Eventually.HoldsAsync(() => CounterNode.Count(counter) > atPause + 3, () => "the resumed node to count again");
    }

    [Fact]
    public async Task Kill_reaps_the_node_and_the_children_it_started()
    {
        using var dir = new TestDirectory("nemesis-kill");
        string marker = Guid.NewGuid().ToString("N");
        string counter = dir.File("node.count"), child = dir.File("child.pid");
        // The node leaves a long sleeper running beside its loop, as a node's helper process would.
        var command = CounterNode.Command(dir, counter, marker, prelude: $"sleep 1000 & echo $! > '{child}';");
        await using var node = await NodeProcess.StartAsync("node", command, dir.Path);
        await Eventually.HoldsAsync(() => CounterNode.Count(counter) >= 1 && File.Exists(child) && File.ReadAllText(child).EndsWith('\n'), () => "the node to start its child and count");
        int pid = node.Pid;
        int childPid = int.Parse(File.ReadAllText(child).Trim(), System.Globalization.CultureInfo.InvariantCulture);
        Assert.NotNull(ProcStat.Read(childPid));

        await node.KillAsync();

        Assert.Equal(NodeProcessState.Killed, node.State);
        Assert.True(ProcStat.Read(pid) is null, $"node {pid} was not reaped: {ProcStat.Read(pid)}");
        Assert.True(ProcStat.Read(childPid) is null or { IsZombie: true }, $"the node's child {childPid} still runs");
        Assert.Empty(ProcStat.LiveInGroup(pid));
        Assert.Empty(CounterNode.LiveProcessesMarked(marker));
        await Assert.ThrowsAsync<InvalidOperationException>(node.PauseAsync);
    }

    [Fact]
    public async Task Restart_runs_the_same_command_again_with_its_output_in_a_file_of_its_own()
    {
        using var dir = new TestDirectory("nemesis-restart");
        string marker = Guid.NewGuid().ToString("N");
        string counter = dir.File("node.count"), starts = dir.File("starts");
        var command = CounterNode.Command(dir, counter, marker, prelude: $"echo $$ >> '{starts}'; echo \"run of $$\";");
        await using var node = await NodeProcess.StartAsync("node", command, dir.Path);
        int first = node.Pid;
        await Eventually.HoldsAsync(() => CounterNode.Count(counter) >= 1, () => "the first run to count");
        await node.KillAsync();
        await node.RestartAsync();
        await Eventually.HoldsAsync(() => File.ReadAllLines(starts).Length == 2, () => "the second run to start");

        Assert.Equal(2, node.Runs);
        Assert.Equal(NodeProcessState.Running, node.State);
        Assert.NotEqual(first, node.Pid);
        Assert.Equal([first.ToString(), node.Pid.ToString()], File.ReadAllLines(starts));
        Assert.Equal($"run of {first}\n", File.ReadAllText(dir.File("node.1.stdout")));
        await Eventually.HoldsAsync(() => File.ReadAllText(node.OutputPath) == $"run of {node.Pid}\n", () => "the second run's output in its own file");

        // A restart of a running node kills it first: a third start, and the second run is gone.
        int second = node.Pid;
        await node.RestartAsync();
        Assert.Equal(3, node.Runs);
        Assert.Null(ProcStat.Read(second));
        await Eventually.HoldsAsync(() => File.ReadAllLines(starts).Length == 3, () => "the third run to start");
    }

    [Fact]
    public async Task A_node_that_exits_by_itself_is_reported_with_its_exit_code_and_the_end_of_its_output()
    {
        using var dir = new TestDirectory("nemesis-exit");
        var command = NodeCommand.Bash("for i in $(seq 1 50); do echo \"line $i\"; done; echo 'cannot open the data file' >&2; exit 3", dir.Path);
        await using var node = await NodeProcess.StartAsync("n2", command, dir.Path);
        await Eventually.HoldsAsync(() => node.State == NodeProcessState.Exited, () => "the node to exit");

        var reported = Assert.Throws<NodeProcessExitedException>(node.ThrowIfExited);
        Assert.Equal(3, reported.ExitCode);
        Assert.Contains("Node n2 exited by itself with code 3", reported.Message);
        Assert.Contains("cannot open the data file", reported.Message);
        Assert.Contains("line 50", reported.Message);
        Assert.DoesNotContain("line 30\n", reported.Message); // a tail, not the whole output
        // Whatever the nemesis tries next reports the same, instead of acting on a dead node.
        var onKill = await Assert.ThrowsAsync<NodeProcessExitedException>(node.KillAsync);
        Assert.Equal(3, onKill.ExitCode);
        await Assert.ThrowsAsync<NodeProcessExitedException>(node.PauseAsync);
        await Assert.ThrowsAsync<NodeProcessExitedException>(node.RestartAsync);
    }

    [Fact]
    public async Task Disposal_after_a_failed_test_leaves_no_process_behind_running_or_paused()
    {
        using var dir = new TestDirectory("nemesis-dispose");
        string marker = Guid.NewGuid().ToString("N");
        var pids = new List<int>();
        var failure = await Assert.ThrowsAsync<InvalidOperationException>(async () =>
        {
            await using var running = await NodeProcess.StartAsync("running", CounterNode.Command(dir, dir.File("a"), marker, "sleep 1000 &"), dir.Path);
            await using var paused = await NodeProcess.StartAsync("paused", CounterNode.Command(dir, dir.File("b"), marker, "sleep 1000 &"), dir.Path);
            pids.AddRange([running.Pid, paused.Pid]);
            await Eventually.HoldsAsync(() => CounterNode.Count(dir.File("a")) > 0 && CounterNode.Count(dir.File("b")) > 0, () => "both nodes to count");
            await paused.PauseAsync();
            Assert.True(CounterNode.LiveProcessesMarked(marker).Count >= 4, "two loops and two sleepers before the failure");
            throw new InvalidOperationException("the test failed here");
        });

        Assert.Equal("the test failed here", failure.Message);
        Assert.Equal(2, pids.Count);
        Assert.All(pids, pid => Assert.Null(ProcStat.Read(pid)));
        Assert.All(pids, pid => Assert.Empty(ProcStat.LiveInGroup(pid)));
        Assert.Empty(CounterNode.LiveProcessesMarked(marker));
    }

    [Fact]
    public async Task A_command_that_cannot_start_is_reported_as_an_exit_with_what_it_printed()
    {
        using var dir = new TestDirectory("nemesis-nostart");
        await using var node = await NodeProcess.StartAsync("n0", new NodeCommand("/nonexistent/cairn-node", [], dir.Path), dir.Path);
        await Eventually.HoldsAsync(() => node.State == NodeProcessState.Exited, () => "setsid to give up");
        var reported = Assert.Throws<NodeProcessExitedException>(node.ThrowIfExited);
        Assert.NotEqual(0, reported.ExitCode);
        Assert.Contains("/nonexistent/cairn-node", reported.OutputTail);
    }
}
