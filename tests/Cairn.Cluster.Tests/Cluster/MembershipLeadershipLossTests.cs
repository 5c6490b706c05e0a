using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// A leader deposed in the middle of an add learns the outcome from the next leader's first commit, even when nothing
/// else is written: that commit is DotNext's empty no-op, which the state machine never sees.
/// </summary>
public sealed class MembershipLeadershipLossTests
{
    [Fact]
    public async Task A_leader_deposed_during_an_add_in_an_idle_cluster_learns_from_the_next_leaders_no_op_that_it_never_committed()
    {
        await using var cluster = await ClusterNodes.StartAsync(4, "membership-deposed", founders: 3);
        int[] founders = [0, 1, 2];
        await cluster.StartJoiningAsync(3);
        var (leader, oldTerm, add) = await AddInsideDotNextsChangeAsync(cluster, founders, 3);
        int[] others = [.. founders.Except([leader])];
        cluster.Network.Partition([[leader, 3], others]);
        cluster.Network.SetBoth(leader, 3, LinkBehaviour.Drop);
        var next = await cluster.LeaderOfAsync(others);
        Assert.True(cluster[next].Term > oldTerm);

        // Nobody writes: the next leader's no-op is the only later-term commit the old leader can learn of. Before
        // this was read from the log, the add waited for a state-machine entry of a later term until its deadline
        // (minutes) and then said the outcome was unknown.
        cluster.Network.Heal();
        cluster.Network.SetBoth(leader, 3, LinkBehaviour.Drop);
        await Assert.ThrowsAsync<NotClusterLeaderException>(() => add);
        Assert.DoesNotContain(cluster.Address(3), cluster[next].Members);
        Assert.DoesNotContain(cluster.Address(3), cluster[leader].Members);
    }

    /// <summary>
    /// Starts the add on the leader with its catch-up rounds to the new node hanging (their bytes are held), and returns
    /// once the leader dialled the new node, so the add is inside DotNext's change. An election under load before that
    /// ends the add at once with <see cref="NotClusterLeaderException"/> (nothing changed); the case then starts again
    /// on the next leader.
    /// </summary>
    private static async Task<(int Leader, long Term, Task Add)> AddInsideDotNextsChangeAsync(ClusterNodes cluster, int[] founders, int joining)
    {
        long endedTerm = 0;
        for (var leaderships = 1; ; leaderships++)
        {
            var leader = await cluster.LeaderOfAsync(founders, afterTerm: endedTerm);
            var term = cluster[leader].Term;
            cluster.Network.SetBoth(leader, joining, LinkBehaviour.Drop);
            var add = cluster[leader].AddMemberAsync(cluster.Address(joining), Eventually.Deadline());
            await Eventually.HoldsAsync(() => cluster.Network.LiveConnectionsDialled(leader, joining) > 0 || add.IsCompleted,
                () => $"the leader never dialled the new node: {cluster.Describe()}");
            if (!add.IsCompleted)
                return (leader, term, add);
            var early = await Record.ExceptionAsync(() => add);
            Assert.True(early is NotClusterLeaderException && leaderships < 10, $"the add ended before the partition: {early?.ToString() ?? "it committed"}");
            cluster.Network.SetBoth(leader, joining, LinkBehaviour.Pass);
            endedTerm = term;
        }
    }
}
