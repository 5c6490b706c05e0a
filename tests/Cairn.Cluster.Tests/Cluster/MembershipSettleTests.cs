using System.Net;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// Before a membership change, the leader makes sure it applied an entry of its own term. In an idle term the only
/// such entry is DotNext's empty no-op, which the state machine never sees. Nobody writes here, so within one term
/// the leader's log grows only by what the membership calls append.
/// </summary>
public sealed class MembershipSettleTests
{
    private static readonly int[] Everyone = [0, 1, 2];

    [Fact]
    public async Task Membership_calls_in_an_idle_term_append_nothing_once_an_entry_of_the_term_is_applied()
    {
        await using var cluster = await ClusterNodes.StartAsync(3, "membership-settle");
        var stranger = new IPEndPoint(IPAddress.Loopback, 1);
        long endedTerm = 0;
        for (var leaderships = 1; ; leaderships++)
        {
            var slot = await cluster.LeaderOfAsync(Everyone, afterTerm: endedTerm);
            var leader = cluster[slot];
            var term = leader.Term;
            // The first call may append an entry of the term if the leader's no-op is not applied yet.
            var stillLeads = await RefusedAsync<MemberIdInUseException>(() => leader.AddMemberAsync(leader.LocalEndPoint));
            var logged = leader.GetStatus().LastLogIndex;
            for (var call = 0; call < 5 && stillLeads; call++)
            {
                stillLeads = await RefusedAsync<MemberIdInUseException>(() => leader.AddMemberAsync(leader.LocalEndPoint))
                    && await RefusedAsync<UnknownClusterMemberException>(() => leader.RemoveMemberAsync(stranger));
            }

            // The index is read before the term: an entry of a later term reaches this log only after its term does.
            var last = leader.GetStatus().LastLogIndex;
            if (stillLeads && leader.Term == term)
            {
                Assert.Equal(logged, last);
                return;
            }

            // An election under load came in between, and its leader appends an entry of its own: start again, bounded.
            Assert.True(leaderships < 10, $"an election came during the calls {leaderships} times: {cluster.Describe()}");
            endedTerm = term;
        }
    }

    /// <summary>True when <paramref name="call"/> was refused with <typeparamref name="TRefusal"/>; false when the node no longer led.</summary>
    private static async Task<bool> RefusedAsync<TRefusal>(Func<Task> call)
        where TRefusal : Exception
    {
        var refusal = await Record.ExceptionAsync(call);
        if (refusal is NotClusterLeaderException)
            return false;
        Assert.IsType<TRefusal>(refusal);
        return true;
    }
}
