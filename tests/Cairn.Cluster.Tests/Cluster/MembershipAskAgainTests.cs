using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// The add asks DotNext again itself while DotNext refuses with nothing changed (the new node did not catch up within
/// its warm-up rounds): the caller sees the add commit, not the refusal of a first attempt.
/// </summary>
public sealed class MembershipAskAgainTests
{
    [Fact]
    public async Task An_add_refused_because_the_node_could_not_catch_up_is_asked_again_by_the_engine_and_commits()
    {
        await using var cluster = await ClusterNodes.StartAsync(4, "membership-ask-again", founders: 3);
        int[] founders = [0, 1, 2];
        await cluster.StartJoiningAsync(3);
        var (leader, refusals) = await AddWithEveryFirstAttemptRefusedAsync(cluster, founders, 3);

        Assert.True(refusals >= 1, "the first attempt was not refused: the test did not test the asking again");
        Assert.Contains(cluster.Address(3), cluster[leader].Members);
        await Eventually.HoldsAsync(() => cluster[3].Members.Contains(cluster.Address(3)), cluster.Describe);
        await cluster.ConvergedAsync([0, 1, 2, 3], cluster[leader].CommitIndex);
    }

    /// <summary>
    /// The leader's link to the new node resets every connection: each warm-up round fails at once, so the first
    /// attempt is refused. The hook mends the link at that refusal, before the engine asks again. The case needs one
    /// leader throughout; when an election ends the leadership first (the add then did not commit, the engine says
    /// so with <see cref="NotClusterLeaderException"/>), the link is mended and the case starts again on the leader of a
    /// later term (the one that stepped down names itself until its state changes: asking it again counts nothing).
    /// </summary>
    private static async Task<(int Leader, int Refusals)> AddWithEveryFirstAttemptRefusedAsync(ClusterNodes cluster, int[] founders, int joining)
    {
        long endedTerm = 0;
        for (var leaderships = 1; ; leaderships++)
        {
            var leader = await cluster.LeaderOfAsync(founders, afterTerm: endedTerm);
            var term = cluster[leader].Term;
            cluster.Network.SetBoth(leader, joining, LinkBehaviour.Reset);
            var refusals = 0;
            cluster[leader].ForTestingPurposesOnly().AfterRefusedAdd(attempt =>
            {
                Interlocked.Exchange(ref refusals, attempt);
                cluster.Network.SetBoth(leader, joining, LinkBehaviour.Pass);
            });
            try
            {
                await cluster[leader].AddMemberAsync(cluster.Address(joining), Eventually.Deadline());
                return (leader, Volatile.Read(ref refusals));
            }
            catch (NotClusterLeaderException) when (leaderships < 10)
            {
                cluster[leader].ForTestingPurposesOnly().AfterRefusedAdd(_ => { });
                cluster.Network.SetBoth(leader, joining, LinkBehaviour.Pass);
                endedTerm = term;
            }
        }
    }
}
