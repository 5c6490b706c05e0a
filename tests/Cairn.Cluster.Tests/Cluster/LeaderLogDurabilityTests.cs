using Cairn.Cluster.Commands;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// Pins what Cairn's acknowledgement relies on in DotNext 6.12's WriteAheadLog: a node commits an entry only after
/// it has flushed the log through that entry (CommitAsync waits for the flusher, which writes its write-through
/// "checkpoint" file before it publishes the flushed index), so a write the leader acknowledges is on the leader's
/// disk. A DotNext upgrade that changes this, or the checkpoint's layout, fails here rather than losing writes.
/// </summary>
public sealed class LeaderLogDurabilityTests
{
    private const string Tree = "durable";
    private static readonly int[] Everyone = [0, 1, 2];

    [Fact]
    public async Task Every_acknowledged_write_is_in_the_leaders_flushed_log_when_the_caller_hears_of_it()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-log-durable");
        var deadline = Eventually.Deadline();
        var session = Guid.NewGuid();
        for (var i = 1; i <= 30; i++)
        {
            var command = new ClusterCommand(new OperationId(session, i), Tree,
                [ClusterOperation.Put(ThreeNodeClusterTests.Key(i), ThreeNodeClusterTests.Value(i))]);
            var (written, slot, _) = await LeaderWrites.WriteAsync(cluster, Everyone, command, deadline);
            // No entry is appended until the next write, so the only checkpoint write that can race this read
            // rewrites the same last flushed index (it updates the commit index): the field read cannot tear.
            var flushed = RaftCheckpoint.FlushedThrough(cluster.RaftLogPath(slot));
            Assert.True(flushed >= written.LogIndex, $"write {i} acknowledged at index {written.LogIndex}, the leader's log flushed only through {flushed}");
        }
    }
}
