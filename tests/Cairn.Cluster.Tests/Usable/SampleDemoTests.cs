using System.Diagnostics;
using Cairn.Tests.Support;

namespace Cairn.Cluster.Tests.Usable;

/// <summary>
/// samples/ReplicatedOrders' demo, run as a user runs it: three node processes, a writer, the leader SIGKILLed, a new
/// leader, the killed node restarted and caught up, every acknowledged order read back. Every wait in the demo is
/// "until it holds" with a ceiling only a hang reaches, so the machine's load changes its duration, not its outcome.
/// </summary>
public sealed class SampleDemoTests
{
    [Fact]
    public async Task The_replicated_orders_demo_keeps_every_acknowledged_write_through_a_leader_kill()
    {
        using var directory = new TestDirectory("sample-replicated-orders");
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true };
        start.ArgumentList.Add(SampleProgram());
        foreach (var argument in new[] { "demo", "--data", directory.File("cluster") })
            start.ArgumentList.Add(argument);
        using var process = Process.Start(start)!;
        var error = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEndAsync();
        try
        {
            // The demo's own ceilings are two minutes per wait; this one only turns a hang of the whole into a failure.
            await process.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(10));
        }
        finally
        {
            if (!process.HasExited)
                process.Kill(entireProcessTree: true);
        }

        var text = await output;
        Assert.True(process.ExitCode == 0, $"exit {process.ExitCode}:\n{text}\n{await error}");
        Assert.Matches(@"Killed the leader, node \d \(SIGKILL\)", text);
        Assert.Matches(@"new leader: node \d \(term \d+\)", text);
        Assert.Matches(@"(\d+) of \1 read back, 0 lost; the restarted node \d has the last one: True", text);
        Assert.Contains("Done: no acknowledged write was lost.", text);
        Assert.Equal(3, text.Split('\n').Count(line => line.Contains("] node ") && line.EndsWith(" stopped", StringComparison.Ordinal)));
    }

    /// <summary>The sample as built beside this test project, in the same configuration and framework (bin/CONFIG/TFM).</summary>
    private static string SampleProgram()
    {
        var framework = new DirectoryInfo(AppContext.BaseDirectory);
        var configuration = framework.Parent!;
        var program = Path.Combine(TestDirectory.RepositoryRoot, "samples", "ReplicatedOrders", "bin", configuration.Name, framework.Name,
            "Cairn.Samples.ReplicatedOrders.dll");
        Assert.True(File.Exists(program), $"{program} is not built");
        return program;
    }
}
