using Cairn.Cluster.Commands;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// A write is acknowledged once a majority holds it on disk: a follower flushes the entries an AppendEntries brought
/// before it answers (<see cref="FlushingRaftLog"/>), so the follower whose answer made the majority has its log
/// flushed through the entry by the time the leader acknowledges it. With one of three nodes stopped, every majority
/// is both running nodes, so the running follower is that follower for every write (whichever of the two leads).
/// </summary>
public sealed class FollowerLogDurabilityTests
{
    private const string Tree = "durable";
    private static readonly int[] Everyone = [0, 1, 2];

    [Fact]
    public async Task Every_acknowledged_write_is_in_the_flushed_log_of_the_follower_that_made_the_majority()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-follower-durable");
        var deadline = Eventually.Deadline();
        var stopped = (await cluster.LeaderOfAsync(Everyone) + 1) % 3;
        await cluster.StopAsync(stopped);
        int[] running = [.. Everyone.Where(node => node != stopped)];
        var session = Guid.NewGuid();
        for (var i = 1; i <= 30; i++)
        {
            var command = new ClusterCommand(new OperationId(session, i), Tree,
                [ClusterOperation.Put(ThreeNodeClusterTests.Key(i), ThreeNodeClusterTests.Value(i))]);
            var (written, leader, _) = await LeaderWrites.WriteAsync(cluster, running, command, deadline);
            var follower = running.Single(node => node != leader);
            // The follower's flushed index moves only when entries are appended, and none is until the next write.
            var flushed = RaftCheckpoint.FlushedThrough(cluster.RaftLogPath(follower));
            Assert.True(flushed >= written.LogIndex,
                $"write {i} acknowledged at index {written.LogIndex}, the only follower's log flushed only through {flushed}");
        }
    }
}
