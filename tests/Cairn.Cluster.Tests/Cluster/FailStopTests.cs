using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// A node whose state machine fails stops itself (fail-stop) instead of going on with an applier DotNext has stopped
/// for good; the others go on, and the node restarted on its folder replays its log and converges.
/// </summary>
public sealed class FailStopTests
{
    private const string Tree = "t";
    private static readonly int[] Everyone = [0, 1, 2];

    [Fact]
    public async Task A_node_whose_apply_fails_stops_refuses_reads_and_writes_and_catches_up_once_restarted()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-failstop");
        using var client = new ClusterClient(cluster.Connections);
        var deadline = Eventually.Deadline();
        await client.WriteAsync(Tree, [ClusterOperation.Put("a"u8.ToArray(), [1])], deadline);
        var leader = await cluster.LeaderOfAsync(Everyone);
        var broken = Everyone.First(i => i != leader);
        await cluster.ConvergedAsync(client.LastWriteIndex);
        Assert.False(cluster[broken].HasFailed);

        // Its environment closed under it: the next apply throws, as a latched environment's does.
        cluster[broken].EnvironmentForTesting.Dispose();
        for (byte i = 2; i <= 5; i++)
            await client.WriteAsync(Tree, [ClusterOperation.Put("a"u8.ToArray(), [i])], deadline);

        var failure = await cluster[broken].Failure.WaitAsync(deadline);
        Assert.IsType<ObjectDisposedException>(failure.Cause);
        Assert.Equal(cluster.Address(broken), failure.Node);
        Assert.True(cluster[broken].HasFailed);
        // Today's applier, stopped for good, left this wait hanging; a failed node ends it with the cause.
        var stale = await Assert.ThrowsAsync<ClusterNodeFailedException>(() => cluster[broken].ReadAppliedAsync(Tree, "a"u8.ToArray(), client.LastWriteIndex, deadline));
        Assert.Same(failure.Cause, stale.Cause);
        await Assert.ThrowsAsync<ClusterNodeFailedException>(() => cluster[broken].ReadAsync(Tree, "a"u8.ToArray(), deadline));
        await Assert.ThrowsAsync<ClusterNodeFailedException>(() => cluster[broken].WriteAsync(
            new ClusterCommand(new OperationId(Guid.NewGuid(), 1), Tree, [ClusterOperation.Put("b"u8.ToArray(), [1])]), deadline));

        // The other two go on without it.
        await client.WriteAsync(Tree, [ClusterOperation.Put("a"u8.ToArray(), [6])], deadline);

        await cluster.StopAsync(broken);
        await cluster.RestartAsync(broken);
        await cluster.ConvergedAsync(client.LastWriteIndex);
        Assert.Equal([6], await cluster[broken].ReadAppliedAsync(Tree, "a"u8.ToArray(), client.LastWriteIndex, deadline));
        Assert.False(cluster[broken].HasFailed);
        cluster.AssertConvergedAndVerified();
    }
}
