using System.Diagnostics;
using Cairn.Cluster;

namespace Cairn.Samples.ReplicatedOrders;

/// <summary>
/// <c>demo</c>: starts three node processes, writes orders through a client, SIGKILLs the leader while the writes go
/// on, shows the new leader, restarts the killed node and lets it catch up, then reads every acknowledged order back.
/// </summary>
internal static class Demo
{
    private static readonly TimeSpan Ceiling = TimeSpan.FromMinutes(2); // only a hang reaches it
    private const int WritesPerPhase = 100;

    public static async Task<int> RunAsync(SampleArguments arguments)
    {
        var data = arguments.DataPath;
        if (File.Exists(Path.Combine(data, "cluster.json")))
            Directory.Delete(data, recursive: true); // a previous demo's cluster: start afresh
        var layout = ClusterLayout.CreateOnFreePorts(data);
        Console.WriteLine($"1. Starting three nodes in {data}");
        var nodes = new NodeProcess[ClusterLayout.NodeCount];
        try
        {
            for (var i = 0; i < nodes.Length; i++)
                nodes[i] = await NodeProcess.StartAsync(i, data);
            await using var access = new ClusterAccess(layout);
            var first = await WaitForAsync(access.LeaderAsync, "a leader");
            Console.WriteLine($"   node {first.Node} leads (term {first.Term})");

            Console.WriteLine($"2. Writing orders through the cluster client");
            using var client = new ClusterClient(access.Connections);
            await using var writer = new BackgroundWriter(client);
            await WaitForAsync(() => Task.FromResult(writer.Acknowledged >= WritesPerPhase ? (int?)1 : null), $"{WritesPerPhase} acknowledged writes");
            ClusterAccess.Print(await access.StatusesAsync());

            var leader = (await WaitForAsync(access.LeaderAsync, "a leader")).Node;
            var beforeKill = writer.Acknowledged;
            var killedAt = writer.Elapsed;
            nodes[leader].Kill();
            Console.WriteLine($"3. Killed the leader, node {leader} (SIGKILL), after {beforeKill} acknowledged orders; the writer goes on");
            await WaitForAsync(() => Task.FromResult(writer.Acknowledged >= beforeKill + WritesPerPhase ? (int?)1 : null), "writes after the kill");
            var next = await WaitForAsync(access.LeaderAsync, "a new leader");
            var gap = writer.FirstAcknowledgementAfter(killedAt) - killedAt;
            Console.WriteLine($"   new leader: node {next.Node} (term {next.Term}); first write acknowledged {gap.TotalSeconds:0.00} s after the kill");
            ClusterAccess.Print(await access.StatusesAsync());

            Console.WriteLine($"4. Restarting node {leader}: it catches up from the others' logs");
            nodes[leader].Dispose();
            nodes[leader] = await NodeProcess.StartAsync(leader, data);
            var target = client.LastWriteIndex;
            await WaitForAsync(async () => (await access.StatusesAsync())[leader] is { } s && s.AppliedIndex >= target ? (int?)1 : null,
                $"node {leader} to apply index {target}");
            var acknowledged = await writer.StopAsync();
            ClusterAccess.Print(await access.StatusesAsync());

            Console.WriteLine($"5. Reading back all {acknowledged} acknowledged orders (linearizable reads on the leader)");
            var missing = 0;
            for (var order = 1; order <= acknowledged; order++)
                if (await client.ReadAsync(ClusterAccess.Tree, ClusterAccess.OrderKey(order)) is not { } value || !value.AsSpan().SequenceEqual(ClusterAccess.OrderValue(order)))
                    missing++;
            // The writer went on after the wait above: ask the restarted node for the last order once it has applied
            // that order's own index (a bounded-stale read waits for it), not the earlier target.
            var onRestarted = await access.Connections[leader].ReadAppliedAsync(ClusterAccess.Tree, ClusterAccess.OrderKey(acknowledged), client.LastWriteIndex);
            Console.WriteLine($"   {acknowledged - missing} of {acknowledged} read back, {missing} lost; the restarted node {leader} has the last one: {onRestarted is not null}");

            Console.WriteLine("6. Stopping the nodes");
            foreach (var node in nodes)
                await node.StopAsync();
            Console.WriteLine(missing == 0 && onRestarted is not null ? "Done: no acknowledged write was lost." : "FAILED: acknowledged writes are missing.");
            return missing == 0 && onRestarted is not null ? 0 : 1;
        }
        finally
        {
            foreach (var node in nodes)
                node?.Dispose();
        }
    }

    private static async Task<T> WaitForAsync<T>(Func<Task<T?>> probe, string what) where T : struct
    {
        var waited = Stopwatch.StartNew();
        while (true)
        {
            if (await probe() is { } found)
                return found;
            if (waited.Elapsed > Ceiling)
                throw new TimeoutException($"no {what} after {Ceiling.TotalMinutes} minutes");
            await Task.Delay(100);
        }
    }

    /// <summary>Writes order after order until stopped, and remembers when each was acknowledged.</summary>
    private sealed class BackgroundWriter : IAsyncDisposable
    {
        private readonly CancellationTokenSource stop = new();
        private readonly Stopwatch clock = Stopwatch.StartNew();
        private readonly List<TimeSpan> acknowledgedAt = []; // guarded by itself
        private readonly Task writing;

        public BackgroundWriter(ClusterClient client) => writing = Task.Run(() => WriteAsync(client));

        public int Acknowledged
        {
            get
            {
                lock (acknowledgedAt)
                    return acknowledgedAt.Count;
            }
        }

        public TimeSpan Elapsed => clock.Elapsed;

        public TimeSpan FirstAcknowledgementAfter(TimeSpan moment)
        {
            lock (acknowledgedAt)
                return acknowledgedAt.First(t => t > moment);
        }

        /// <summary>Stops after the write in flight (acknowledged or given up, its outcome unknown); returns how many were acknowledged.</summary>
        public async Task<int> StopAsync()
        {
            await stop.CancelAsync();
            await writing;
            return Acknowledged;
        }

        public async ValueTask DisposeAsync()
        {
            await StopAsync();
            stop.Dispose();
        }

        private async Task WriteAsync(ClusterClient client)
        {
            for (var order = 1; !stop.IsCancellationRequested; order++)
            {
                try
                {
                    var result = await client.WriteAsync(ClusterAccess.Tree, [ClusterOperation.Put(ClusterAccess.OrderKey(order), ClusterAccess.OrderValue(order))], stop.Token);
                    lock (acknowledgedAt)
                        acknowledgedAt.Add(clock.Elapsed);
                    if (order % 50 == 0)
                        Console.WriteLine($"   order {order} acknowledged (log index {result.LogIndex})");
                }
                catch (WriteOutcomeUnknownException) when (stop.IsCancellationRequested)
                {
                    return; // the last write, given up when the demo stopped the writer: not counted as acknowledged
                }
            }
        }
    }
}
