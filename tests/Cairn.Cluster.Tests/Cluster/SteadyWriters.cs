using System.Collections.Concurrent;
using System.Text;
using Cairn.Cluster.Tests.Linearizability;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// Clients that write and read through <see cref="ClusterClient"/> until stopped, each put to a key of its own that is
/// written once, each read of a key some client has written, all recorded in a <see cref="HistoryRecorder"/>. A put
/// that is acknowledged must be on every node at the end, with its value: that is how a lost write shows.
/// </summary>
internal sealed class SteadyWriters : IAsyncDisposable
{
    public const string Tree = "steady";
    private readonly CancellationTokenSource stop = new();
    private readonly ConcurrentQueue<string> writtenKeys = new();
    private readonly ConcurrentDictionary<string, string> acknowledged = new();
    private readonly Task[] clients;
    private int operations;

    public SteadyWriters(IReadOnlyList<IClusterNodeConnection> nodes, int clientCount)
        => clients = Enumerable.Range(0, clientCount).Select(c => Task.Run(() => RunAsync(nodes, c))).ToArray();

    public HistoryRecorder Recorder { get; } = new();

    /// <summary>Operations completed so far (acknowledged or not).</summary>
    public int Operations => Volatile.Read(ref operations);

    /// <summary>Every acknowledged put: key and value.</summary>
    public IReadOnlyDictionary<string, string> Acknowledged => acknowledged;

    /// <summary>Waits until <paramref name="more"/> further operations have completed: the load is going on.</summary>
    public Task ProgressAsync(int more)
    {
        var target = Operations + more;
        return Nemesis.Eventually.HoldsAsync(() => Operations >= target, () => $"{Operations} of {target} operations done");
    }

    /// <summary>Stops the clients after their current operation and waits for them.</summary>
    public async Task StopAsync()
    {
        await stop.CancelAsync();
        await Task.WhenAll(clients);
    }

    /// <summary>Each acknowledged put's value, as <paramref name="node"/> holds it (its environment, no barrier).</summary>
    public void AssertAcknowledgedOn(ClusterNode node)
    {
        using var read = node.BeginLocalRead();
        Assert.True(acknowledged.IsEmpty || read.TryOpenTree(Tree, out _), $"node {node.LocalEndPoint} holds no '{Tree}' tree");
        if (!read.TryOpenTree(Tree, out var tree))
            return;
        foreach (var (key, value) in acknowledged)
        {
            var held = tree.Get(Encoding.UTF8.GetBytes(key));
            Assert.True(held is not null && Encoding.UTF8.GetString(held) == value,
                $"acknowledged {key}={value} is {(held is null ? "missing" : Encoding.UTF8.GetString(held))} on {node.LocalEndPoint}");
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (!stop.IsCancellationRequested)
            await StopAsync();
        stop.Dispose();
    }

    private async Task RunAsync(IReadOnlyList<IClusterNodeConnection> nodes, int id)
    {
        using var client = new ClusterClient(nodes);
        var random = new Random(id * 7919 + 17);
        for (var i = 0; !stop.IsCancellationRequested; i++)
        {
            // Generous: an operation gives up (unknown outcome) only if the cluster has no leader for this long.
            using var giveUp = new CancellationTokenSource(TimeSpan.FromSeconds(60));
            if (i % 3 != 2 || writtenKeys.IsEmpty)
                await PutAsync(client, id, $"c{id}-{i}", giveUp.Token);
            else
                await GetAsync(client, id, writtenKeys.ElementAt(random.Next(writtenKeys.Count)), giveUp.Token);
            Interlocked.Increment(ref operations);
        }
    }

    private async Task PutAsync(ClusterClient client, int id, string key, CancellationToken giveUp)
    {
        var value = $"v-{key}";
        var pending = Recorder.Invoke(id, OperationCall.Put(key, value));
        try
        {
            await client.WriteAsync(Tree, [ClusterOperation.Put(Encoding.UTF8.GetBytes(key), Encoding.UTF8.GetBytes(value))], giveUp);
            pending.Ok();
            acknowledged[key] = value;
        }
        catch (Exception e) when (e is WriteOutcomeUnknownException or SessionExpiredException or OperationCanceledException)
        {
            pending.Unknown();
        }

        writtenKeys.Enqueue(key);
    }

    private async Task GetAsync(ClusterClient client, int id, string key, CancellationToken giveUp)
    {
        var pending = Recorder.Invoke(id, OperationCall.Get(key));
        try
        {
            var read = await client.ReadAsync(Tree, Encoding.UTF8.GetBytes(key), giveUp);
            pending.OkRead(read is null ? null : Encoding.UTF8.GetString(read));
        }
        catch (OperationCanceledException)
        {
            pending.Unknown();
        }
    }
}
