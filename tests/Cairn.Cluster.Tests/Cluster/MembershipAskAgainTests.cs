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
        var leader = await cluster.LeaderOfAsync(founders);
        await cluster.StartJoiningAsync(3);

        // The leader's link to the new node resets every connection: each warm-up round fails at once, so the first
        // attempt is refused. The hook mends the link at that refusal, before the engine asks again.
        cluster.Network.SetBoth(leader, 3, LinkBehaviour.Reset);
        var refusals = 0;
        cluster[leader].ForTestingPurposesOnly().AfterRefusedAdd(attempt =>
        {
            Interlocked.Exchange(ref refusals, attempt);
            cluster.Network.SetBoth(leader, 3, LinkBehaviour.Pass);
        });
        await cluster[leader].AddMemberAsync(cluster.Address(3), Eventually.Deadline());

        Assert.True(Volatile.Read(ref refusals) >= 1, "the first attempt was not refused: the test did not test the asking again");
        Assert.Contains(cluster.Address(3), cluster[leader].Members);
        await Eventually.HoldsAsync(() => cluster[3].Members.Contains(cluster.Address(3)), cluster.Describe);
        await cluster.ConvergedAsync([0, 1, 2, 3], cluster[leader].CommitIndex);
    }
}
