namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>
/// The proxies under real DotNext Raft members: a partition made by the nemesis's network is one Raft sees.
/// </summary>
public sealed class RaftThroughNemesisTests
{
    [Theory]
    [InlineData(LinkMode.Drop)]
    [InlineData(LinkMode.Reset)]
    public async Task Three_members_elect_then_the_two_cut_off_from_the_leader_elect_a_newer_one_then_all_agree_after_the_heal(LinkMode cut)
    {
        await using var raft = await RaftNodes.StartAsync(3);
        int[] everyone = [0, 1, 2];

        int oldLeader;
        long oldTerm;
        int[] others;
        for (var choice = 1; ; choice++)
        {
            int? first = null;
            await Eventually.HoldsAsync(() => (first = raft.LeaderAgreedBy(everyone)) is not null, raft.Describe);
            oldLeader = first!.Value;
            oldTerm = raft.TermOf(oldLeader);
            others = everyone.Where(node => node != oldLeader).ToArray();
            // Every word between the leader and the others went through the proxies.
            foreach (var other in others)
            {
                Assert.True(raft.Network.Link(oldLeader, other).BytesForwarded > 0, $"nothing went from {oldLeader} to {other}");
                Assert.True(raft.Network.Link(other, oldLeader).BytesForwarded > 0, $"nothing went from {other} to {oldLeader}");
            }

            raft.Network.Partition([[oldLeader], others], new LinkBehaviour(cut, TimeSpan.Zero));
            // The cut took the leader only if nobody was elected between the choice and the cut (terms only grow);
            // under load an election can fall there, and the cut would take a follower: choose again, bounded.
            if (others.All(node => raft.TermOf(node) == oldTerm))
                break;
            raft.Network.Heal();
            Assert.True(choice < 10, $"an election came between choosing the leader and cutting it off {choice} times: {raft.Describe()}");
        }

        int? second = null;
        await Eventually.HoldsAsync(
            () => (second = raft.LeaderAgreedBy(others)) is not null && raft.TermOf(second.Value) > oldTerm,
            () => $"after cutting off {oldLeader} (term {oldTerm}): {raft.Describe()}");
        var newLeader = second!.Value;
        var newTerm = raft.TermOf(newLeader);
        Assert.NotEqual(oldLeader, newLeader);
        if (cut == LinkMode.Drop)
        {
            Assert.True(raft.Network.Link(oldLeader, others[0]).BytesHeld + raft.Network.Link(oldLeader, others[1]).BytesHeld > 0,
                "the cut-off leader's bytes were never held: its traffic did not go through the proxies");
        }

        raft.Network.Heal();
        int? healed = null;
        await Eventually.HoldsAsync(
            () => (healed = raft.LeaderAgreedBy(everyone)) is not null && raft.TermOf(healed.Value) >= newTerm,
            () => $"after the heal (new leader {newLeader}, term {newTerm}): {raft.Describe()}");
        Assert.True(raft.TermOf(oldLeader) >= newTerm, $"node {oldLeader} is back in term {raft.TermOf(oldLeader)}, before {newTerm}");
    }
}
