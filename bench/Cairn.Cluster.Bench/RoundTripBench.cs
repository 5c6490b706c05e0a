using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace Cairn.Cluster.Bench;

/// <summary>
/// Item 3: what a real network would add. Measures, on this machine: a loopback TCP round trip (small request,
/// small reply, as an AppendEntries and its answer), a 4 KiB write + fsync on the scratch disk, and one caller's
/// write latency on a single node and on the 3-node cluster (interleaved). A clustered write costs one round trip
/// from the leader to the nearest majority (the followers are sent the entry in parallel; the first answer makes the
/// majority of three) plus a Raft log write on the leader and on that follower, plus the leader's own Cairn commit;
/// so the figure for another network is the loopback one with the loopback round trip replaced by that network's.
/// </summary>
internal static class RoundTripBench
{
    private const string Tree = "orders";

    public static async Task RunAsync(int rounds, int writes, int lowerElection, int upperElection)
    {
        var rtt = await LoopbackRoundTripAsync(2000);
        var fsync = DiskWriteAndSync(200);
        Console.WriteLine($"round trip: loopback TCP round trip p50 {Measure.Percentile(rtt, 0.5) * 1000:F0} µs, p99 {Measure.Percentile(rtt, 0.99) * 1000:F0} µs; 4 KiB write + fsync on the scratch disk p50 {Measure.Percentile(fsync, 0.5):F2} ms  (load {Measure.Load()})");

        using var scratch = new Scratch("roundtrip");
        using var single = StorageEnvironment.Open(new StorageOptions(scratch.Sub("data")));
        await using var cluster = await BenchCluster.StartAsync(3, lowerElection, upperElection);
        using var client = new ClusterClient(cluster.Connections(Enumerable.Range(0, cluster.Count)));
        var random = new Random(3);
        Task SingleWrite(int caller, byte[] key, byte[] value)
            => single.WriteAsync((Key: key, Value: value), static (transaction, s) => transaction.CreateTree(Tree).Put(s.Key, s.Value)).AsTask();
        Task ClusterWrite(int caller, byte[] key, byte[] value) => client.WriteAsync(Tree, [ClusterOperation.Put(key, value)]);
        await CallerRun.RunAsync(1, 10, random, SingleWrite);
        await CallerRun.RunAsync(1, 10, random, ClusterWrite);

        var singleLatencies = new List<double>();
        var clusterLatencies = new List<double>();
        for (var round = 0; round < rounds; round++)
        {
            var s = await CallerRun.RunAsync(1, writes, random, SingleWrite);
            var c = await CallerRun.RunAsync(1, writes, random, ClusterWrite);
            singleLatencies.AddRange(s.LatenciesMs);
            clusterLatencies.AddRange(c.LatenciesMs);
            Console.WriteLine($"  1 caller round {round}: single p50 {Measure.Percentile(s.LatenciesMs, 0.5):F2} ms, cluster p50 {Measure.Percentile(c.LatenciesMs, 0.5):F2} ms  (load {Measure.Load()})");
        }

        var singleP50 = Measure.Percentile(singleLatencies, 0.5);
        var clusterP50 = Measure.Percentile(clusterLatencies, 0.5);
        var loopback = Measure.Percentile(rtt, 0.5);
        Console.WriteLine($"  one caller, p50: single node {singleP50:F2} ms, cluster {clusterP50:F2} ms; the cluster adds {clusterP50 - singleP50:F2} ms = 1 loopback round trip ({loopback:F3} ms) + 2 Raft log writes with fsync (a 4 KiB write + fsync is {Measure.Percentile(fsync, 0.5):F2} ms here) + DotNext's own work");
        Console.WriteLine("  each write = 1 round trip to the nearest majority + a log fsync on the leader and on that follower + the leader's Cairn commit; a client in another process adds 1 round trip to the leader. Expected p50 on another network (one caller, this disk):");
        foreach (var networkRtt in new[] { 0.1, 0.5, 1.0, 5.0, 50.0 })
        {
            var inProcess = clusterP50 - loopback + networkRtt;
            Console.WriteLine($"    round trip {networkRtt,5:F1} ms: about {inProcess:F1} ms in the leader's process, {inProcess + networkRtt:F1} ms from a remote client; one caller at most {1000 / (inProcess + networkRtt):F0} writes/s (N callers: at most N times that; the throughput part shows what the log's flushes leave of it)");
        }
    }

    /// <summary>Round trips of a 64-byte request and a 16-byte reply over one loopback TCP connection, in ms.</summary>
    private static async Task<double[]> LoopbackRoundTripAsync(int count)
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen();
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await client.ConnectAsync(listener.LocalEndPoint!);
        using var server = await listener.AcceptAsync();
        server.NoDelay = true;
        var echo = Task.Run(async () =>
        {
            var request = new byte[64];
            var reply = new byte[16];
            for (var i = 0; i < count; i++)
            {
                for (var read = 0; read < request.Length;)
                    read += await server.ReceiveAsync(request.AsMemory(read));
                await server.SendAsync(reply);
            }
        });
        var times = new double[count];
        var message = new byte[64];
        var answer = new byte[16];
        for (var i = 0; i < count; i++)
        {
            var started = Stopwatch.GetTimestamp();
            await client.SendAsync(message);
            for (var read = 0; read < answer.Length;)
                read += await client.ReceiveAsync(answer.AsMemory(read));
            times[i] = Measure.Milliseconds(Stopwatch.GetTimestamp() - started);
        }

        await echo;
        return times;
    }

    /// <summary>4 KiB writes each followed by an fsync, on the scratch disk, in ms.</summary>
    private static double[] DiskWriteAndSync(int count)
    {
        using var scratch = new Scratch("fsync");
        using var file = new FileStream(scratch.Sub("probe"), FileMode.Create, FileAccess.Write, FileShare.None, 1, FileOptions.None);
        var block = new byte[4096];
        var times = new double[count];
        for (var i = 0; i < count; i++)
        {
            var started = Stopwatch.GetTimestamp();
            file.Write(block);
            file.Flush(flushToDisk: true);
            times[i] = Measure.Milliseconds(Stopwatch.GetTimestamp() - started);
        }

        return times;
    }
}
