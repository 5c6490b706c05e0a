using System.Text;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>Three Cairn.Cluster nodes in this process, on disk, their Raft traffic through the nemesis network.</summary>
public sealed class ThreeNodeClusterTests
{
    private const string Tree = "orders";
    private static readonly int[] Everyone = [0, 1, 2];

    [Fact]
    public async Task Acknowledged_writes_survive_the_leaders_loss_a_new_leader_serves_them_and_the_old_one_catches_up()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-failover");
        using var client = new ClusterClient(cluster.Connections);
        var deadline = Eventually.Deadline();
        for (var i = 0; i < 20; i++)
            await client.WriteAsync(Tree, [ClusterOperation.Put(Key(i), Value(i))], deadline);

        var leader = await cluster.LeaderOfAsync(Everyone);
        // The leader found now may be a later one than the one that acknowledged write 19 (an election under load):
        // it serves the write once it has applied its index.
        Assert.Equal(Value(19), await cluster[leader].ReadAppliedAsync(Tree, Key(19), client.LastWriteIndex, deadline));
        // The leader of the moment it stops, not a follower an election made of it in between.
        var oldLeader = await LeaderLoss.StopAsync(cluster, Everyone);
        var others = Everyone.Where(i => i != oldLeader).ToArray();
        var newLeader = await cluster.LeaderOfAsync(others);
        Assert.NotEqual(oldLeader, newLeader);

        for (var i = 0; i < 20; i++)
            Assert.Equal(Value(i), await client.ReadAsync(Tree, Key(i), deadline));
        for (var i = 20; i < 30; i++)
            await client.WriteAsync(Tree, [ClusterOperation.Put(Key(i), Value(i))], deadline);

        await cluster.RestartAsync(oldLeader);
        await cluster.ConvergedAsync(client.LastWriteIndex);
        Assert.Equal(Value(29), await cluster[oldLeader].ReadAppliedAsync(Tree, Key(29), client.LastWriteIndex, deadline));
        cluster.AssertConvergedAndVerified();
    }

    [Fact]
    public async Task A_write_retried_with_its_operation_id_is_applied_once_on_every_node()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-retry");
        var deadline = Eventually.Deadline();
        var session = Guid.NewGuid();
        var first = new ClusterCommand(new OperationId(session, 1), Tree, [ClusterOperation.Put(Key(0), Value(1))]);
        var second = new ClusterCommand(new OperationId(session, 2), Tree, [ClusterOperation.Put(Key(0), Value(2))]);

        // Each sending goes to whichever node leads then. An attempt that ended with an unknown outcome (an election
        // under load) may have applied the command; only without one must the acknowledgement be a first apply.
        var applied = await LeaderWrites.WriteAsync(cluster, Everyone, first, deadline);
        Assert.True(applied.AfterUnknownOutcome || !applied.Written.WasRetry, $"sent once, answered as a retry: {applied}");
        // The acknowledgement was "lost": the same write again is recognised, with the original's index.
        Assert.Equal(new ClusterWriteResult(applied.Written.LogIndex, WasRetry: true), (await LeaderWrites.WriteAsync(cluster, Everyone, first, deadline)).Written);
        var next = await LeaderWrites.WriteAsync(cluster, Everyone, second, deadline);
        Assert.True(next.AfterUnknownOutcome || !next.Written.WasRetry, $"sent once, answered as a retry: {next}");
        // A late copy of the first write, after the second: no node sets the key back.
        Assert.True((await LeaderWrites.WriteAsync(cluster, Everyone, first, deadline)).Written.WasRetry);

        var nextIndex = next.Written.LogIndex;
        await cluster.ConvergedAsync(nextIndex);
        foreach (var node in Everyone)
            Assert.Equal(Value(2), await cluster[node].ReadAppliedAsync(Tree, Key(0), nextIndex, deadline));
        cluster.AssertConvergedAndVerified();
    }

    [Fact]
    public async Task A_cut_off_leader_acknowledges_nothing_the_majority_elects_and_goes_on_and_the_heal_converges()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-partition");
        using var client = new ClusterClient(cluster.Connections);
        var deadline = Eventually.Deadline();
        await client.WriteAsync(Tree, [ClusterOperation.Put(Key(0), Value(0))], deadline);
        // The leader of the moment the cut is made, not a follower an election made of it in between.
        var oldLeader = await LeaderLoss.CutOffAsync(cluster, Everyone);
        var others = Everyone.Where(i => i != oldLeader).ToArray();

        // Written straight to the cut-off leader, with no retry elsewhere: it must not be acknowledged.
        var lonely = new ClusterCommand(new OperationId(Guid.NewGuid(), 1), Tree, [ClusterOperation.Put(Key(1), Value(666))]);
        using (var giveUp = new CancellationTokenSource(TimeSpan.FromSeconds(3)))
        {
            var refused = await Record.ExceptionAsync(() => cluster[oldLeader].WriteAsync(lonely, giveUp.Token));
            Assert.True(refused is WriteOutcomeUnknownException or NotClusterLeaderException, $"the minority leader answered {refused?.ToString() ?? "OK"}");
        }

        await cluster.LeaderOfAsync(others);
        for (var i = 2; i < 12; i++)
            await client.WriteAsync(Tree, [ClusterOperation.Put(Key(i), Value(i))], deadline);
        Assert.Equal(Value(11), await client.ReadAsync(Tree, Key(11), deadline));

        cluster.Network.Heal();
        await cluster.LeaderOfAsync(Everyone);
        await cluster.ConvergedAsync(client.LastWriteIndex);
        // The cut-off leader's entry was never committed: overwritten by the new leader's log, applied nowhere.
        foreach (var node in Everyone)
            Assert.Null(await cluster[node].ReadAppliedAsync(Tree, Key(1), client.LastWriteIndex, deadline));
        Assert.Equal(Value(11), await cluster[oldLeader].ReadAppliedAsync(Tree, Key(11), client.LastWriteIndex, deadline));
        cluster.AssertConvergedAndVerified();
    }

    internal static byte[] Key(int i) => Encoding.UTF8.GetBytes($"key-{i}");

    internal static byte[] Value(int i) => Encoding.UTF8.GetBytes($"value-{i}");
}
