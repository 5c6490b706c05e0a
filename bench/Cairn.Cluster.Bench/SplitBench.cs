using Cairn.Cluster.Node;

namespace Cairn.Cluster.Bench;

/// <summary>
/// Issue 28 item 5, step 1: the split of a replication round at each caller count, on the throughput bench's
/// cluster and writes, with every node's stage recorder on (<see cref="RoundSplit"/>). A run of its own, so the
/// recorder's cost never reaches the throughput mode's cluster/single ratios.
/// </summary>
internal static class SplitBench
{
    private const string Tree = "orders";

    public static async Task RunAsync(IReadOnlyList<int> callerCounts, int rounds, int writesPerCaller, int lowerElection, int upperElection)
    {
        await using var cluster = await BenchCluster.StartAsync(3, lowerElection, upperElection);
        var connections = cluster.Connections(Enumerable.Range(0, cluster.Count));
        var random = new Random(28);
        Console.WriteLine($"split: 3-node cluster in this process, {writesPerCaller} writes per caller per round, {rounds} rounds; stage timestamps on every node");
        foreach (var callers in callerCounts)
        {
            var clients = Enumerable.Range(0, callers).Select(_ => new ClusterClient(connections)).ToArray();
            try
            {
                Task Write(int caller, byte[] key, byte[] value) => clients[caller].WriteAsync(Tree, [ClusterOperation.Put(key, value)]);
                await CallerRun.RunAsync(callers, 5, random, Write); // warm-up, not recorded
                var split = new RoundSplit();
                for (var round = 0; round < rounds; round++)
                {
                    var leader = await cluster.LeaderAsync();
                    var recorders = Enumerable.Range(0, cluster.Count).Select(_ => new RoundRecorder()).ToArray();
                    for (var node = 0; node < cluster.Count; node++)
                        cluster[node].ForTestingPurposesOnly().RecordRounds(recorders[node]);
                    var run = await CallerRun.RunAsync(callers, writesPerCaller, random, Write);
                    for (var node = 0; node < cluster.Count; node++)
                        cluster[node].ForTestingPurposesOnly().RecordRounds(null);
                    split.Add(recorders[leader].Drain(), Enumerable.Range(0, cluster.Count).Where(n => n != leader).Select(n => recorders[n].Drain()).ToArray());
                    Console.WriteLine($"  {callers,2} callers round {round}: {run.Rate,8:F0} writes/s, p50 {Measure.Percentile(run.LatenciesMs, 0.5),7:F2} ms  (load {Measure.Load()})");
                }

                split.Print(callers);
            }
            finally
            {
                foreach (var client in clients)
                    client.Dispose();
            }
        }
    }
}
