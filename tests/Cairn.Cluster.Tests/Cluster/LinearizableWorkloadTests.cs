using System.Text;
using Cairn.Cluster.Tests.Linearizability;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// Clients writing and reading a few keys through <see cref="ClusterClient"/> while the nemesis cuts the leader off
/// and heals; the recorded history must be linearizable, and the nodes converge and verify clean.
/// </summary>
public sealed class LinearizableWorkloadTests
{
    private const string Tree = "registers";
    private const int Clients = 3;
    private const int OperationsPerClient = 30;
    private static readonly string[] Keys = ["a", "b", "c"];

    [Fact]
    public async Task A_history_of_puts_deletes_and_reads_across_a_leader_partition_is_linearizable()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-linearizable");
        int[] everyone = [0, 1, 2];
        await cluster.LeaderOfAsync(everyone);
        var recorder = new HistoryRecorder();
        var done = 0;
        var workers = Enumerable.Range(0, Clients).Select(c => Task.Run(() => RunClientAsync(cluster, recorder, c, () => Interlocked.Increment(ref done)))).ToArray();

        // The nemesis: once the clients are a third of the way, cut the leader off until the others elect, then heal.
        await Eventually.HoldsAsync(() => Volatile.Read(ref done) >= Clients * OperationsPerClient / 3, () => $"{done} operations done");
        var leader = await LeaderLoss.CutOffAsync(cluster, everyone);
        var others = everyone.Where(i => i != leader).ToArray();
        await cluster.LeaderOfAsync(others);
        cluster.Network.Heal();
        await Task.WhenAll(workers);

        var history = recorder.ToHistory();
        var result = LinearizabilityChecker.Check(history, KeyValueRegisterModel.Instance);
        Assert.True(result.Verdict == Verdict.Linearizable, result.Explain());
        Assert.Equal(Clients * OperationsPerClient, history.Operations.Count);
        Assert.True(history.Operations.Count(op => op.Completion.Outcome == Outcome.Ok) >= Clients * OperationsPerClient / 2,
            "most operations should be acknowledged: the cluster had a majority all along");

        await cluster.LeaderOfAsync(everyone);
        await cluster.ConvergedAsync(cluster[0].CommitIndex);
        cluster.AssertConvergedAndVerified();
    }

    private static async Task RunClientAsync(ClusterNodes cluster, HistoryRecorder recorder, int id, Func<int> countDone)
    {
        using var client = new ClusterClient(cluster.Connections);
        var random = new Random(id * 7919 + 17);
        for (var i = 0; i < OperationsPerClient; i++)
        {
            var key = Keys[random.Next(Keys.Length)];
            var roll = random.Next(10);
            // Generous: an operation gives up (unknown outcome) only if the cluster has no leader for this long.
            using var giveUp = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            if (roll < 4)
            {
                var value = $"c{id}-{i}";
                var pending = recorder.Invoke(id, OperationCall.Put(key, value));
                await CompleteWriteAsync(pending, () => client.WriteAsync(Tree, [ClusterOperation.Put(Bytes(key), Bytes(value))], giveUp.Token));
            }
            else if (roll < 5)
            {
                var pending = recorder.Invoke(id, OperationCall.Delete(key));
                await CompleteWriteAsync(pending, () => client.WriteAsync(Tree, [ClusterOperation.Delete(Bytes(key))], giveUp.Token));
            }
            else
            {
                var pending = recorder.Invoke(id, OperationCall.Get(key));
                try
                {
                    var read = await client.ReadAsync(Tree, Bytes(key), giveUp.Token);
                    pending.OkRead(read is null ? null : Encoding.UTF8.GetString(read));
                }
                catch (OperationCanceledException)
                {
                    pending.Unknown();
                }
            }

            countDone();
        }
    }

    private static async Task CompleteWriteAsync(PendingOperation pending, Func<Task<ClusterWriteResult>> write)
    {
        try
        {
            await write();
            pending.Ok();
        }
        catch (Exception e) when (e is WriteOutcomeUnknownException or SessionExpiredException)
        {
            pending.Unknown();
        }
    }

    private static byte[] Bytes(string text) => Encoding.UTF8.GetBytes(text);
}
