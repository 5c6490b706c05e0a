namespace Cairn.Cluster.Bench;

/// <summary>
/// Item 1: the same callers and values against a single Cairn node's merger (<c>WriteAsync</c>, durable) and a
/// 3-node cluster (each caller a <see cref="ClusterClient"/> session; the leader replicates, a majority holds the
/// entry, the leader applies it), rounds interleaved single, cluster, single, cluster... on one environment and one
/// cluster kept for the whole run.
/// </summary>
internal static class ThroughputBench
{
    private const string Tree = "orders";

    public static async Task RunAsync(IReadOnlyList<int> callerCounts, int rounds, int writesPerCaller, int lowerElection, int upperElection)
    {
        using var scratch = new Scratch("single");
        using var single = StorageEnvironment.Open(new StorageOptions(scratch.Sub("data")));
        await using var cluster = await BenchCluster.StartAsync(3, lowerElection, upperElection);
        var connections = cluster.Connections(Enumerable.Range(0, cluster.Count));
        var random = new Random(28);
        Console.WriteLine($"throughput: 3-node cluster in this process (Raft over loopback TCP) and a single node, all on this machine's one disk; {writesPerCaller} writes per caller per round, {rounds} rounds each, interleaved");

        foreach (var callers in callerCounts)
        {
            var clients = Enumerable.Range(0, callers).Select(_ => new ClusterClient(connections)).ToArray();
            try
            {
                Task SingleWrite(int caller, byte[] key, byte[] value)
                    => single.WriteAsync((Key: key, Value: value), static (transaction, s) => transaction.CreateTree(Tree).Put(s.Key, s.Value)).AsTask();
                Task ClusterWrite(int caller, byte[] key, byte[] value)
                    => clients[caller].WriteAsync(Tree, [ClusterOperation.Put(key, value)]);

                // Warm-up (JIT, the clients finding the leader, the trees' first pages); not counted.
                await CallerRun.RunAsync(callers, 5, random, SingleWrite);
                await CallerRun.RunAsync(callers, 5, random, ClusterWrite);

                var singles = new List<CallerRun>();
                var clustered = new List<CallerRun>();
                for (var round = 0; round < rounds; round++)
                {
                    var s = await CallerRun.RunAsync(callers, writesPerCaller, random, SingleWrite);
                    Print(callers, round, "single ", s);
                    var entriesBefore = cluster.CommitIndex;
                    var c = await CallerRun.RunAsync(callers, writesPerCaller, random, ClusterWrite);
                    Print(callers, round, "cluster", c, $", {c.Writes / (double)Math.Max(1, cluster.CommitIndex - entriesBefore):F1} writes per Raft entry");
                    singles.Add(s);
                    clustered.Add(c);
                }

                Summarise(callers, singles, clustered);
            }
            finally
            {
                foreach (var client in clients)
                    client.Dispose();
            }
        }
    }

    private static void Print(int callers, int round, string mode, CallerRun run, string detail = "")
        => Console.WriteLine($"  {callers,2} callers round {round} {mode}: {run.Rate,8:F0} writes/s, p50 {Measure.Percentile(run.LatenciesMs, 0.5),7:F2} ms, p99 {Measure.Percentile(run.LatenciesMs, 0.99),7:F2} ms{detail}  (load {Measure.Load()})");

    private static void Summarise(int callers, List<CallerRun> singles, List<CallerRun> clustered)
    {
        static double Rate(List<CallerRun> runs) => runs.Sum(r => r.Writes) / runs.Sum(r => r.Seconds);
        static double[] All(List<CallerRun> runs) => runs.SelectMany(r => r.LatenciesMs).ToArray();
        var (singleAll, clusterAll) = (All(singles), All(clustered));
        var rateRatio = Rate(clustered) / Rate(singles);
        var p50Ratio = Measure.Percentile(clusterAll, 0.5) / Measure.Percentile(singleAll, 0.5);
        var p99Ratio = Measure.Percentile(clusterAll, 0.99) / Measure.Percentile(singleAll, 0.99);
        var perRound = string.Join(" ", singles.Zip(clustered, (s, c) => (c.Rate / s.Rate).ToString("F2")));
        Console.WriteLine($"  {callers,2} callers: cluster/single rate {rateRatio:F2} (target >= 0.5; per round {perRound}), p50 latency {p50Ratio:F2}x (target <= 3), p99 latency {p99Ratio:F2}x");
    }
}
