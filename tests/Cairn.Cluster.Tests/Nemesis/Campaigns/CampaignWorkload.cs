using System.Collections.Concurrent;
using System.Text;
using Cairn.Cluster.Tests.Linearizability;

namespace Cairn.Cluster.Tests.Nemesis.Campaigns;

/// <summary>
/// Clients of a <see cref="ProcessCluster"/>, each a <see cref="ClusterClient"/> session over its own connections,
/// putting, deleting and reading (linearizably) a few register keys until stopped, every call recorded in a
/// <see cref="HistoryRecorder"/>. Each write also puts a key of its own (<c>ack/&lt;client&gt;/&lt;n&gt;</c>) in the
/// same command, so once the cluster converges every acknowledged write can be looked for in the nodes' dumps.
/// </summary>
internal sealed class CampaignWorkload
{
    public const string Tree = "registers";

    // Enough keys that each one's history stays small for the checker, few enough that clients contend on them.
    private static readonly string[] Keys = ["a", "b", "c", "d", "e", "f"];

    // Generous: an operation gives up (unknown outcome) only if no leader serves it for this long.
    private static readonly TimeSpan GiveUp = TimeSpan.FromSeconds(30);

    private readonly ProcessCluster cluster;
    private readonly CancellationTokenSource stop = new();
    private readonly ConcurrentBag<byte[]> acknowledged = [];
    private readonly Task[] clients;
    private int completed;
    private int gaveUp;

    public CampaignWorkload(ProcessCluster cluster, int clientCount, int seed)
    {
        this.cluster = cluster;
        clients = Enumerable.Range(0, clientCount).Select(c => Task.Run(() => RunClientAsync(c, new Random(seed * 7919 + c)))).ToArray();
    }

    public HistoryRecorder Recorder { get; } = new();

    /// <summary>Operations completed, whatever their outcome.</summary>
    public int Completed => Volatile.Read(ref completed);

    /// <summary>Operations that gave up (unknown outcome) while the clients were still running: no leader served them for <see cref="GiveUp"/>.</summary>
    public int GaveUp => Volatile.Read(ref gaveUp);

    /// <summary>The marker key of every acknowledged write.</summary>
    public IReadOnlyCollection<byte[]> Acknowledged => acknowledged;

    /// <summary>Stops the clients after the calls they are in (those give up at once: unknown) and waits for them.</summary>
    public async Task StopAsync()
    {
        await stop.CancelAsync();
        await Task.WhenAll(clients);
        stop.Dispose();
    }

    private async Task RunClientAsync(int id, Random random)
    {
        var connections = cluster.Connect();
        try
        {
            using var client = new ClusterClient(connections);
            for (var n = 0; !stop.IsCancellationRequested; n++)
            {
                var key = Keys[random.Next(Keys.Length)];
                var roll = random.Next(20);
                using var giveUp = CancellationTokenSource.CreateLinkedTokenSource(stop.Token);
                giveUp.CancelAfter(GiveUp);
                if (roll < 11)
                    await ReadAsync(client, id, key, giveUp.Token);
                else
                    await WriteAsync(client, id, n, key, delete: roll < 13, giveUp.Token);
                Interlocked.Increment(ref completed);
            }
        }
        finally
        {
            foreach (var connection in connections)
                await connection.DisposeAsync();
        }
    }

    private async Task ReadAsync(ClusterClient client, int id, string key, CancellationToken token)
    {
        var pending = Recorder.Invoke(id, OperationCall.Get(key));
        try
        {
            var read = await client.ReadAsync(Tree, Bytes(key), token);
            pending.OkRead(read is null ? null : Encoding.UTF8.GetString(read));
        }
        catch (OperationCanceledException) when (token.IsCancellationRequested)
        {
            Unknown(pending);
        }
    }

    private async Task WriteAsync(ClusterClient client, int id, int n, string key, bool delete, CancellationToken token)
    {
        var value = $"c{id}-{n}";
        var marker = Bytes($"ack/{id}/{n}");
        var pending = Recorder.Invoke(id, delete ? OperationCall.Delete(key) : OperationCall.Put(key, value));
        ClusterOperation change = delete ? ClusterOperation.Delete(Bytes(key)) : ClusterOperation.Put(Bytes(key), Bytes(value));
        try
        {
            await client.WriteAsync(Tree, [change, ClusterOperation.Put(marker, Bytes(value))], token);
            acknowledged.Add(marker);
            pending.Ok();
        }
        catch (Exception e) when (e is WriteOutcomeUnknownException or SessionExpiredException
            || (e is OperationCanceledException && token.IsCancellationRequested))
        {
            Unknown(pending);
        }
    }

    private void Unknown(PendingOperation pending)
    {
        pending.Unknown();
        if (!stop.IsCancellationRequested)
            Interlocked.Increment(ref gaveUp);
    }

    private static byte[] Bytes(string text) => Encoding.UTF8.GetBytes(text);
}
