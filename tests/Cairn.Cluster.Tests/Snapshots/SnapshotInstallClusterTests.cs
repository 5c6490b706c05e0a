using Cairn.Cluster.Tests.Cluster;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Snapshots;

/// <summary>Three nodes in this process on disk, compacting their logs: a node left behind catches up by snapshot.</summary>
public sealed class SnapshotInstallClusterTests
{
    private const string Tree = "orders";
    private static readonly int[] Everyone = [0, 1, 2];

    [Fact]
    public async Task A_node_stopped_while_the_others_write_past_a_compaction_installs_the_snapshot_and_resumes_from_the_log()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-install", snapshotInterval: 20);
        using var client = new ClusterClient(cluster.Connections);
        var deadline = Eventually.Deadline();
        for (var i = 0; i < 10; i++)
            await client.WriteAsync(Tree, [ClusterOperation.Put(Key(i), Value(i))], deadline);
        await cluster.ConvergedAsync(client.LastWriteIndex);

        var behind = (await cluster.LeaderOfAsync(Everyone) + 1) % 3;
        var others = Everyone.Where(i => i != behind).ToArray();
        await cluster.StopAsync(behind);
        var heldWhenStopped = client.LastWriteIndex;
        for (var i = 10; i < 110; i++)
            await client.WriteAsync(Tree, [ClusterOperation.Put(Key(i), Value(i)), ClusterOperation.Delete(Key(i - 10))], deadline);
        // The others' snapshots now cover entries the stopped node never had: the log cannot give them to it.
        await Eventually.HoldsAsync(() => others.All(i => cluster[i].SnapshotIndex > heldWhenStopped + 1), cluster.Describe);

        await cluster.RestartAsync(behind);
        await cluster.ConvergedAsync(client.LastWriteIndex);
        Assert.True(cluster[behind].SnapshotsInstalled >= 1, "the node caught up without a snapshot");

        // And it goes on from the log.
        for (var i = 110; i < 120; i++)
            await client.WriteAsync(Tree, [ClusterOperation.Put(Key(i), Value(i))], deadline);
        await cluster.ConvergedAsync(client.LastWriteIndex);
        Assert.Equal(Value(119), await cluster[behind].ReadAppliedAsync(Tree, Key(119), client.LastWriteIndex, deadline));
        Assert.Null(await cluster[behind].ReadAppliedAsync(Tree, Key(5), client.LastWriteIndex, deadline));
        cluster.AssertConvergedAndVerified();
    }

    private static byte[] Key(int i) => BitConverter.GetBytes(i);

    private static byte[] Value(int i) => [.. BitConverter.GetBytes(i), .. "order"u8];
}
