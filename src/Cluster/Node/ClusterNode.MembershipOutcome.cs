using System.Net;
using Cairn.Cluster.Membership;
using DotNext.Net.Cluster.Consensus.Raft;

namespace Cairn.Cluster;

public sealed partial class ClusterNode
{
    /// <summary>How a membership change attempt ended, as far as this node can tell.</summary>
    private enum ChangeOutcome
    {
        /// <summary>The configuration with the change committed.</summary>
        Committed,

        /// <summary>DotNext refused it (the new node did not catch up, or the id was not in the list); nothing changed.</summary>
        Refused,

        /// <summary>The leadership ended before the entry committed, and a later term's commit shows it never will.</summary>
        LostLeadership,
    }

    // How often the add asks DotNext again while it refuses with nothing changed (the new node did not catch up within
    // its 10 warm-up rounds, e.g. while a snapshot install outlasts them), and the pauses between, doubling up to the
    // ceiling: about 8 s of catching up beyond the rounds before the add reports the refusal.
    private const int ChangeAttempts = 8;
    private static readonly TimeSpan FirstPause = TimeSpan.FromMilliseconds(100), LongestPause = TimeSpan.FromMilliseconds(1600);

    // How often a node that lost its leadership during a change looks whether a later term's entry applied: DotNext
    // has no wait for that, and it comes within an election or two.
    private static readonly TimeSpan OutcomePoll = TimeSpan.FromMilliseconds(20);

    /// <summary>
    /// Runs DotNext's change once. When the leadership ends during it, waits until the outcome is known: the change
    /// committed if this node applies a configuration where <paramref name="done"/> holds (a leader removing itself
    /// steps down as soon as it applies the configuration without it, which can end DotNext's wait for that same
    /// apply); it never will once this node applies an entry of a later term without it (Raft: an entry of the old
    /// term that a later leader's committed entry does not follow is overwritten).
    /// </summary>
    private async Task<ChangeOutcome> ChangeOnceAsync(EndPoint id, Func<EndPoint, CancellationToken, Task<bool>> change,
        Func<MemberConfiguration, bool> done, CancellationToken cancellationToken)
    {
        var term = raft.Term;
        try
        {
            return await change(id, cancellationToken).ConfigureAwait(false) ? ChangeOutcome.Committed : ChangeOutcome.Refused;
        }
        catch (RaftCluster.ConcurrentMembershipModificationException e)
        {
            throw new MembershipChangeException(id, "another membership change is under way on this leader; nothing changed", outcomeKnown: true, e);
        }
        catch (NotLeaderException e)
        {
            return await OutcomeAfterLeadershipLossAsync(id, term, done, e, cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            throw new MembershipChangeException(id, $"node {LocalEndPoint} stopped during the change", outcomeKnown: false, e);
        }
    }

    private async Task<ChangeOutcome> OutcomeAfterLeadershipLossAsync(EndPoint id, long term, Func<MemberConfiguration, bool> done,
        NotLeaderException lost, CancellationToken cancellationToken)
    {
        try
        {
            var looked = 0L;
            while (!done(membership.Current))
            {
                ObjectDisposedException.ThrowIf(Volatile.Read(ref disposed) != 0, this);
                var applied = log.LastAppliedIndex;
                if (applied > looked)
                {
                    // The next leader's first entry is DotNext's empty no-op, which the state machine never sees
                    // (an idle cluster commits nothing else), so the term is read from the log.
                    looked = applied;
                    if (await log.AppliedTermAtAsync(applied, cancellationToken).ConfigureAwait(false) > term && !done(membership.Current))
                        return ChangeOutcome.LostLeadership;
                }

                await Task.Delay(OutcomePoll, cancellationToken).ConfigureAwait(false);
            }

            return ChangeOutcome.Committed;
        }
        catch (OperationCanceledException e) when (cancellationToken.IsCancellationRequested)
        {
            throw new MembershipChangeException(id,
                $"node {LocalEndPoint} lost its leadership during the change and learnt no later term's commit before the cancellation; "
                + "read Members on the leader before asking again", outcomeKnown: false, new AggregateException(lost, e));
        }
    }

    /// <summary>Waits before asking again, longer each time; false when the attempts are spent.</summary>
    private static async Task<bool> PauseBeforeAskingAgainAsync(int attempt, CancellationToken cancellationToken)
    {
        if (attempt >= ChangeAttempts)
            return false;
        var pause = FirstPause * Math.Pow(2, attempt - 1);
        await Task.Delay(pause < LongestPause ? pause : LongestPause, cancellationToken).ConfigureAwait(false);
        return true;
    }
}
