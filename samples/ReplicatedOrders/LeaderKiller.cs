using System.Diagnostics;

namespace Cairn.Samples.ReplicatedOrders;

/// <summary><c>kill-leader</c>: asks the nodes who leads, and kills that node's process with SIGKILL (no goodbye).</summary>
internal static class LeaderKiller
{
    public static async Task<int> RunAsync(SampleArguments arguments)
    {
        await using var access = new ClusterAccess(ClusterLayout.LoadOrCreate(arguments.DataPath));
        if (await access.LeaderAsync() is not { } leader)
        {
            Console.Error.WriteLine("replicated-orders: no node leads now (are the nodes running?)");
            return 1;
        }

        var pid = Kill(arguments.DataPath, leader.Node);
        Console.WriteLine($"killed node {leader.Node} (pid {pid}), the leader in term {leader.Term}");
        return 0;
    }

    /// <summary>SIGKILLs the process whose pid node <paramref name="node"/> wrote; returns the pid.</summary>
    public static int Kill(string data, int node)
    {
        var pid = int.Parse(File.ReadAllText(ClusterLayout.PidFile(data, node)));
        using var process = Process.GetProcessById(pid);
        process.Kill(); // SIGKILL on Linux and macOS
        process.WaitForExit();
        return pid;
    }
}
