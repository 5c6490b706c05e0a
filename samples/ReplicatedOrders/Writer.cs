using System.Diagnostics;
using Cairn.Cluster;

namespace Cairn.Samples.ReplicatedOrders;

/// <summary><c>write</c>: writes orders through a <see cref="ClusterClient"/>, which finds the leader and retries safely.</summary>
internal static class Writer
{
    public static async Task<int> RunAsync(SampleArguments arguments)
    {
        await using var access = new ClusterAccess(ClusterLayout.LoadOrCreate(arguments.DataPath));
        using var client = new ClusterClient(access.Connections);
        var timer = Stopwatch.StartNew();
        for (var order = 1; order <= arguments.Count; order++)
        {
            var result = await client.WriteAsync(ClusterAccess.Tree, [ClusterOperation.Put(ClusterAccess.OrderKey(order), ClusterAccess.OrderValue(order))]);
            if (order % 50 == 0 || order == arguments.Count)
                Console.WriteLine($"order {order} acknowledged at log index {result.LogIndex} ({timer.Elapsed.TotalSeconds:0.0} s)");
        }

        return 0;
    }
}
