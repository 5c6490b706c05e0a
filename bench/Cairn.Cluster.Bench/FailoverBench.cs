using System.Diagnostics;

namespace Cairn.Cluster.Bench;

/// <summary>
/// Item 2: time from killing the leader to the first write acknowledged by a new one, over N kills, while
/// background callers keep writing. The probe is a <see cref="ClusterClient"/> over the survivors only (so only a new
/// leader can acknowledge it) that retries every millisecond or two. After each kill the old leader restarts and the
/// three converge before the next. At the end every acknowledged write is looked up on every node.
/// </summary>
internal static class FailoverBench
{
    private const string Tree = "orders";

    public static async Task RunAsync(int kills, int backgroundCallers, int lowerElection, int upperElection)
    {
        await using var cluster = await BenchCluster.StartAsync(3, lowerElection, upperElection);
        Console.WriteLine($"failover: 3-node cluster in this process (Raft over loopback TCP, one disk), election timeout {lowerElection}-{upperElection} ms, {kills} kills of the leader, {backgroundCallers} background callers writing throughout");
        var acknowledged = new System.Collections.Concurrent.ConcurrentBag<byte[]>();
        using var stop = new CancellationTokenSource();
        var background = Enumerable.Range(0, backgroundCallers).Select(i => WriteUntilStoppedAsync(cluster, i, acknowledged, stop.Token)).ToArray();
        var times = new List<double>();
        var probeOptions = new ClusterClientOptions { InitialBackoff = TimeSpan.FromMilliseconds(1), MaxBackoff = TimeSpan.FromMilliseconds(2) };
        for (var kill = 0; kill < kills; kill++)
        {
            var leader = await cluster.LeaderAsync();
            var survivors = Enumerable.Range(0, cluster.Count).Where(i => i != leader).ToArray();
            using var probe = new ClusterClient(cluster.Connections(survivors), probeOptions);
            var key = BitConverter.GetBytes(-1L - kill);
            var killedAt = Stopwatch.GetTimestamp();
            var killing = Task.Run(() => cluster.KillAsync(leader));
            await probe.WriteAsync(Tree, [ClusterOperation.Put(key, key)]);
            var failover = Measure.Milliseconds(Stopwatch.GetTimestamp() - killedAt);
            acknowledged.Add(key);
            await killing;
            times.Add(failover);
            Console.WriteLine($"  kill {kill,3}: node {leader} killed, first write acknowledged by the new leader after {failover,7:F1} ms  (load {Measure.Load()})");
            await cluster.RestartAsync(leader);
            await cluster.ConvergedAsync();
        }

        await stop.CancelAsync();
        await Task.WhenAll(background);
        await cluster.ConvergedAsync();
        var missing = CountMissing(cluster, acknowledged);
        Console.WriteLine($"  failover over {times.Count} kills: p50 {Measure.Percentile(times, 0.5):F1} ms, p99 {Measure.Percentile(times, 0.99):F1} ms, max {times.Max():F1} ms (target p99 <= 1000 ms)");
        Console.WriteLine($"  acknowledged writes: {acknowledged.Count}, missing on some node: {missing}");
        if (missing != 0)
            throw new InvalidOperationException($"{missing} acknowledged writes are missing from a node after the failovers.");
    }

    /// <summary>A background caller: writes until stopped, recording each acknowledged key.</summary>
    private static async Task WriteUntilStoppedAsync(BenchCluster cluster, int caller, System.Collections.Concurrent.ConcurrentBag<byte[]> acknowledged, CancellationToken stop)
    {
        using var client = new ClusterClient(cluster.Connections(Enumerable.Range(0, cluster.Count)));
        for (long i = 0; !stop.IsCancellationRequested; i++)
        {
            var key = BitConverter.GetBytes(caller * (1L << 40) + i);
            try
            {
                await client.WriteAsync(Tree, [ClusterOperation.Put(key, key)], stop);
                acknowledged.Add(key);
            }
            catch (WriteOutcomeUnknownException) when (stop.IsCancellationRequested)
            {
                return; // stopped while a write was in flight: its outcome does not matter to the check
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                return;
            }
        }
    }

    private static int CountMissing(BenchCluster cluster, IEnumerable<byte[]> keys)
    {
        var missing = 0;
        for (var node = 0; node < cluster.Count; node++)
        {
            using var read = cluster[node].BeginLocalRead();
            var tree = read.OpenTree(Tree);
            missing += keys.Count(key => !tree.TryGet(key, out _));
        }

        return missing;
    }
}
