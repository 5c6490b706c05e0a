using System.Net;
using Cairn.Cluster.Membership;
using DotNext.Net.Cluster.Consensus.Raft;

namespace Cairn.Cluster;

public sealed partial class ClusterNode
{
    /// <summary>
    /// The voting members as this node knows them: the configuration the cluster committed, as far as this node has
    /// applied its log (a node waiting to be added knows none, or the members of before it was added).
    /// </summary>
    public IReadOnlyList<EndPoint> Members => [.. membership.Current.Members.Order(EndPointOrder.Instance)];

    /// <summary>Every id removed from the cluster, as this node knows it; none of them can be added again.</summary>
    public IReadOnlyList<EndPoint> RemovedMembers => [.. membership.Current.Retired.Order(EndPointOrder.Instance)];

    /// <summary>
    /// Adds the node at <paramref name="id"/>, which runs already with no founding members
    /// (<see cref="ClusterNodeOptions.Members"/> empty), on this node, which must lead. DotNext's Raft first brings it
    /// up to date through the log, over a few warm-up rounds, while it does not vote; then it commits the
    /// configuration naming it, from which point it votes and counts in every majority. Writes go on throughout.
    /// While DotNext refuses because the node did not catch up within its rounds (nothing changed; a snapshot install
    /// can outlast them), this asks again, a few times over several seconds, before it reports the refusal. When this
    /// node loses its leadership during the change, it waits for a later term's commit to learn whether the change
    /// committed, then returns, asks again if it leads again, or throws <see cref="NotClusterLeaderException"/>.
    /// </summary>
    /// <exception cref="NotClusterLeaderException">This node does not lead (or no longer does); nothing changed: ask the leader.</exception>
    /// <exception cref="MemberIdInUseException">The id is a member, or was removed: it is never used twice.</exception>
    /// <exception cref="MembershipChangeException">Not completed; <see cref="MembershipChangeException.OutcomeKnown"/> says whether it may still commit.</exception>
    public async Task AddMemberAsync(EndPoint id, CancellationToken cancellationToken = default)
    {
        MembershipCodec.CheckEncodable(id);
        for (var attempt = 1; ; attempt++)
        {
            await SettleMembershipAsync(cancellationToken).ConfigureAwait(false);
            var configuration = membership.Current;
            if (configuration.Members.Contains(id) || configuration.Retired.Contains(id))
                throw new MemberIdInUseException(id, wasRemoved: configuration.Retired.Contains(id));
            var outcome = await ChangeOnceAsync(id, raft.AddMemberAsync, done => done.Members.Contains(id), cancellationToken).ConfigureAwait(false);
            if (outcome is ChangeOutcome.Committed)
                return;
            if (outcome is ChangeOutcome.Refused)
                afterRefusedAdd?.Invoke(attempt);
            if (!await PauseBeforeAskingAgainAsync(attempt, cancellationToken).ConfigureAwait(false))
            {
                throw new MembershipChangeException(id,
                    $"it did not catch up with the log within the warm-up rounds of {attempt} attempts, or refused the leader's entries; nothing changed",
                    outcomeKnown: true);
            }
        }
    }

    /// <summary>
    /// Removes the member at <paramref name="id"/> (this node itself included: it steps down once the configuration
    /// without it commits, and another member is elected) on this node, which must lead; the id is retired for good.
    /// A dead member is removed the same way. Removing an id already removed does nothing. When this node loses its
    /// leadership during the change, it waits for a later term's commit to learn whether the change committed, then
    /// returns, asks again if it leads again, or throws <see cref="NotClusterLeaderException"/>.
    /// </summary>
    /// <exception cref="NotClusterLeaderException">This node does not lead (or no longer does); nothing changed: ask the leader.</exception>
    /// <exception cref="UnknownClusterMemberException">The id is not a member and never was.</exception>
    /// <exception cref="MembershipChangeException">Not completed; <see cref="MembershipChangeException.OutcomeKnown"/> says whether it may still commit.</exception>
    public async Task RemoveMemberAsync(EndPoint id, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        for (var attempt = 1; ; attempt++)
        {
            await SettleMembershipAsync(cancellationToken).ConfigureAwait(false);
            var configuration = membership.Current;
            if (configuration.Retired.Contains(id))
                return;
            if (!configuration.Members.Contains(id))
                throw new UnknownClusterMemberException(id);
            var outcome = await ChangeOnceAsync(id, raft.RemoveMemberAsync, done => done.Retired.Contains(id), cancellationToken).ConfigureAwait(false);
            if (outcome is ChangeOutcome.Committed)
                return;
            if (outcome is ChangeOutcome.Refused)
                throw new MembershipChangeException(id, "the configuration without it was not committed; nothing changed", outcomeKnown: true);
            if (!await PauseBeforeAskingAgainAsync(attempt, cancellationToken).ConfigureAwait(false))
                throw new MembershipChangeException(id, $"node {LocalEndPoint} lost its leadership in each of {attempt} attempts; nothing changed", outcomeKnown: true);
        }
    }

    /// <summary>
    /// Makes sure this leader has applied an entry of its own term, and so every configuration committed before it:
    /// the checks above and DotNext's change both start from the configuration this node holds. Appends an empty
    /// entry only when none of this term is applied yet.
    /// </summary>
    private async Task SettleMembershipAsync(CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref disposed) != 0, this);
        if (!IsLeader)
            throw new NotClusterLeaderException(LocalEndPoint, Leader);
        try
        {
            var term = raft.Term;
            if (stateMachine.AppliedTerm < term && !await AppliedEntryOfTermAsync(term, cancellationToken).ConfigureAwait(false))
                await raft.ReplicateAsync(ReadOnlyMemory<byte>.Empty, null, cancellationToken).ConfigureAwait(false);
        }
        catch (NotLeaderException)
        {
            throw new NotClusterLeaderException(LocalEndPoint, Leader);
        }
    }

    /// <summary>
    /// Whether the log's last applied entry is of <paramref name="term"/>. The state machine's term does not say so in
    /// an idle term: the leader's first entry is DotNext's empty no-op, which the applier never hands to it, so every
    /// membership call appended another no-op. The log knows every entry's term.
    /// </summary>
    private async ValueTask<bool> AppliedEntryOfTermAsync(long term, CancellationToken cancellationToken)
    {
        var applied = log.LastAppliedIndex;
        return applied > 0 && await log.AppliedTermAtAsync(applied, cancellationToken).ConfigureAwait(false) >= term;
    }
}
