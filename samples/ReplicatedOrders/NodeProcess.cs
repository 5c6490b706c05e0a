using System.Diagnostics;

namespace Cairn.Samples.ReplicatedOrders;

/// <summary>
/// A node started as a process of its own (this program with <c>node INDEX</c>), its output echoed with its name. It is
/// stopped gracefully by closing its input, or killed with SIGKILL.
/// </summary>
internal sealed class NodeProcess : IDisposable
{
    private readonly Process process;
    private readonly TaskCompletionSource ready = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private NodeProcess(int node, string data)
    {
        Node = node;
        var start = new ProcessStartInfo(Environment.ProcessPath!) { RedirectStandardInput = true, RedirectStandardOutput = true, RedirectStandardError = true };
        // Under 'dotnet run' or 'dotnet X.dll' the process is dotnet itself: it needs the program's path first.
        if (Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet")
            start.ArgumentList.Add(typeof(NodeProcess).Assembly.Location);
        foreach (var argument in new[] { "node", node.ToString(), "--data", data })
            start.ArgumentList.Add(argument);
        process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, line) => Echo(line.Data, isReady: true);
        process.ErrorDataReceived += (_, line) => Echo(line.Data, isReady: false);
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
    }

    public int Node { get; }

    public bool HasExited => process.HasExited;

    /// <summary>Starts node <paramref name="node"/> and waits until it says it is ready (or exits, or a minute passes).</summary>
    public static async Task<NodeProcess> StartAsync(int node, string data)
    {
        var started = new NodeProcess(node, data);
        var exited = started.process.WaitForExitAsync();
        var first = await Task.WhenAny(started.ready.Task, exited, Task.Delay(TimeSpan.FromMinutes(1)));
        if (first != started.ready.Task)
        {
            var why = first == exited ? $"exited with code {started.process.ExitCode}" : "said nothing for a minute";
            started.Dispose();
            throw new InvalidOperationException($"node {node} did not start (it {why}).");
        }

        return started;
    }

    public void Kill()
    {
        process.Kill();
        process.WaitForExit();
    }

    /// <summary>Closes the node's input, which stops its host (node, log and environment closed), and waits for it.</summary>
    public async Task StopAsync()
    {
        if (process.HasExited)
            return;
        process.StandardInput.Close();
        using var ceiling = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        try
        {
            await process.WaitForExitAsync(ceiling.Token);
        }
        catch (OperationCanceledException)
        {
            Console.WriteLine($"[node {Node}] did not stop within 30 s: killed");
            Kill();
        }
    }

    public void Dispose()
    {
        if (!process.HasExited)
            Kill();
        process.Dispose();
    }

    private void Echo(string? line, bool isReady)
    {
        if (line is null)
            return;
        Console.WriteLine($"    [node {Node}] {line}");
        if (isReady && line.StartsWith($"node {Node} ready", StringComparison.Ordinal))
            ready.TrySetResult();
    }
}
