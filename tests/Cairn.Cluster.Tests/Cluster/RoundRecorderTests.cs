using Cairn.Cluster.Commands;
using Cairn.Cluster.Node;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// The bench's split of a replication round (issue 28 item 5) is only as good as its hooks: each stage must be seen
/// where DotNext really does it (the leader's append and commit reach the log through the re-implemented interface
/// members), in the order a round does them. Orders between stages are causal (an answer after a flush, a commit
/// after an answer), never timed.
/// </summary>
public sealed class RoundRecorderTests
{
    private static readonly int[] Everyone = [0, 1, 2];

    [Fact]
    public async Task A_write_leaves_every_stage_of_its_round_in_causal_order_on_the_leader_and_a_follower()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "cluster-round-recorder");
        var recorders = Everyone.Select(_ => new RoundRecorder()).ToArray();
        foreach (var node in Everyone)
            cluster[node].ForTestingPurposesOnly().RecordRounds(recorders[node]);

        var deadline = Eventually.Deadline();
        var session = Guid.NewGuid();
        ClusterWriteResult written;
        int leader;
        var sequence = 0L;
        do
        {
            // A write retried across a leader change is answered from the dedup table, not by a round of its own.
            var command = new ClusterCommand(new OperationId(session, ++sequence), "rounds", [ClusterOperation.Put(BitConverter.GetBytes(sequence), [1, 2, 3])]);
            (written, leader, _) = await LeaderWrites.WriteAsync(cluster, Everyone, command, deadline);
        }
        while (written.WasRetry);

        var index = written.LogIndex;
        var onLeader = recorders[leader].Drain();
        long At(RoundEvent[] events, RoundStage stage) => events.Where(e => e.Stage == stage && e.First <= index && index <= e.Last)
            .Select(e => e.Timestamp).DefaultIfEmpty(long.MaxValue).Min();
        RoundStage[] leaderChain = [RoundStage.Queued, RoundStage.Sent, RoundStage.LeaderAppended, RoundStage.CommitStarted,
            RoundStage.Committed, RoundStage.ApplyStarted, RoundStage.Applied, RoundStage.ReplicateReturned, RoundStage.CallerCompleted];
        foreach (var stage in leaderChain)
            Assert.True(At(onLeader, stage) != long.MaxValue, $"the leader recorded no {stage} for index {index}");
        for (var s = 1; s < leaderChain.Length; s++)
            Assert.True(At(onLeader, leaderChain[s - 1]) <= At(onLeader, leaderChain[s]), $"{leaderChain[s - 1]} after {leaderChain[s]}");

        // The commit needs a follower's answer, which comes after that follower flushed the entry.
        var followers = Everyone.Where(n => n != leader).Select(n => recorders[n].Drain()).ToArray();
        var flushedFirst = followers.MinBy(f => At(f, RoundStage.FollowerFlushed))!;
        Assert.True(At(flushedFirst, RoundStage.FollowerFlushed) <= At(onLeader, RoundStage.CommitStarted), "the leader committed before any follower flushed");
        Assert.True(At(onLeader, RoundStage.LeaderAppended) <= At(flushedFirst, RoundStage.FollowerReceived));
        Assert.True(At(flushedFirst, RoundStage.FollowerReceived) <= At(flushedFirst, RoundStage.FollowerAppended));
        Assert.True(At(flushedFirst, RoundStage.FollowerAppended) <= At(flushedFirst, RoundStage.FollowerFlushed));
    }
}
