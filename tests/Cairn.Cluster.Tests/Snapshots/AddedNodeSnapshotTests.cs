using Cairn.Cluster.Tests.Cluster;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Snapshots;

/// <summary>
/// Membership meets log compaction (issue 28 item 3): a node added after the founders compacted their logs past its
/// start cannot be brought up through the log; DotNext's warm-up rounds send it the leader's snapshot, and it must
/// then vote and converge like any member.
/// </summary>
public sealed class AddedNodeSnapshotTests
{
    private const string Tree = "orders";
    private static readonly int[] Founders = [0, 1, 2];
    private static readonly int[] Everyone = [0, 1, 2, 3];

    [Fact]
    public async Task A_node_added_after_the_log_was_compacted_installs_the_snapshot_then_votes_and_converges()
    {
        await using var cluster = await ClusterNodes.StartAsync(4, "cluster-add-install", snapshotInterval: 20, founders: 3);
        using var client = new ClusterClient(cluster.Connections);
        var deadline = Eventually.Deadline();
        for (var i = 0; i < 100; i++)
            await client.WriteAsync(Tree, [ClusterOperation.Put(Key(i), Value(i)), ClusterOperation.Delete(Key(i - 10))], deadline);
        // Every founder has dropped the start of its log: the new node's first entry is in none of them.
        await Eventually.HoldsAsync(() => Founders.All(i => cluster[i].SnapshotIndex > 20), cluster.Describe);

        await cluster.StartJoiningAsync(3);
        var leader = await AddAsync(cluster, deadline);
        Assert.True(cluster[3].SnapshotsInstalled >= 1, $"the added node caught up without a snapshot: {cluster.Describe()}");
        await Eventually.HoldsAsync(() => cluster[3].Members.Contains(cluster.Address(3)), cluster.Describe);

        // It counts and votes: four members need three. With a follower founder stopped, each write needs the new
        // node's acknowledgement; with that founder back and the leader stopped, the election needs its vote.
        var stopped = Founders.Where(i => i != leader).Take(1).Append(leader).ToArray();
        await cluster.StopAsync(stopped[0]);
        for (var i = 100; i < 110; i++)
            await client.WriteAsync(Tree, [ClusterOperation.Put(Key(i), Value(i))], deadline);
        await cluster.RestartAsync(stopped[0]);
        await cluster.StopAsync(stopped[1]);
        for (var i = 110; i < 120; i++)
            await client.WriteAsync(Tree, [ClusterOperation.Put(Key(i), Value(i))], deadline);
        var remaining = Everyone.Except([stopped[1]]).ToArray();
        await cluster.ConvergedAsync(remaining, client.LastWriteIndex);
        Assert.Equal(Value(119), await cluster[3].ReadAppliedAsync(Tree, Key(119), client.LastWriteIndex, deadline));
        Assert.Null(await cluster[3].ReadAppliedAsync(Tree, Key(5), client.LastWriteIndex, deadline));

        await cluster.RestartAsync(stopped[1]);
        await cluster.ConvergedAsync(Everyone, client.LastWriteIndex);
        cluster.AssertConvergedAndVerified(Everyone);
    }

    /// <summary>
    /// Adds node 3 through whichever founder leads. The install can outlast DotNext's warm-up rounds on a loaded
    /// machine: the engine asks again itself while the refusal says nothing changed. Returns the leader that committed it.
    /// </summary>
    private static Task<int> AddAsync(ClusterNodes cluster, CancellationToken deadline)
        => ThroughLeader.ChangeAsync(cluster, Founders, node => node.AddMemberAsync(cluster.Address(3), deadline));

    private static byte[] Key(int i) => BitConverter.GetBytes(i);

    private static byte[] Value(int i) => [.. BitConverter.GetBytes(i), .. "order"u8];
}
