using Cairn.Cluster.Commands;
using Cairn.Cluster.StateMachine;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Threading;

namespace Cairn.Cluster;

public sealed partial class ClusterNode
{
    /// <summary>
    /// Replicates <paramref name="command"/> from this node, which must lead. Completes when a majority holds the entry
    /// and this node has applied it, so a read here afterwards sees it. This node's log is then flushed through the
    /// entry (DotNext commits only flushed entries); the followers' logs are flushed at their next commit.
    /// </summary>
    /// <exception cref="NotClusterLeaderException">This node does not lead; nothing was appended.</exception>
    /// <exception cref="WriteOutcomeUnknownException">Appended, but the commit is not known; retry with the same id.</exception>
    /// <exception cref="SessionExpiredException">Refused by every node: the client's session is not in the dedup table.</exception>
    public async Task<ClusterWriteResult> WriteAsync(ClusterCommand command, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(command);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref disposed) != 0, this);
        ThrowIfFailed();
        if (!IsLeader)
            throw new NotClusterLeaderException(LocalEndPoint, Leader);

        var waiter = new ApplyWaiter(command.Id);
        ReadOnlyMemory<byte> payload = CommandCodec.Encode(command);
        try
        {
            // Appends, then waits until this node has applied the entry's index (so a majority held it).
            await raft.ReplicateAsync(payload, waiter, cancellationToken).ConfigureAwait(false);
        }
        catch (NotLeaderException e)
        {
            // DotNext may refuse before or after appending; either way a retry with the same id is what is safe.
            throw new WriteOutcomeUnknownException(command.Id, $"node {LocalEndPoint} lost its leadership", e);
        }
        catch (PendingTaskInterruptedException e)
        {
            // DotNext ends the wait so when its applier stops: this node failed (fail-stop) with the entry appended.
            throw new WriteOutcomeUnknownException(command.Id, $"node {LocalEndPoint} failed while waiting for the commit", e);
        }
        catch (OperationCanceledException e)
        {
            // The caller's token, or DotNext's own (the node stopping): appended or not, the outcome is not known here.
            throw new WriteOutcomeUnknownException(command.Id,
                cancellationToken.IsCancellationRequested ? "the wait for the commit was cancelled" : $"node {LocalEndPoint} stopped waiting for the commit", e);
        }

        ApplyOutcome outcome;
        try
        {
            // Set by the apply of this entry, which ReplicateAsync waited for; the wait ends at once.
            outcome = await waiter.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException e)
        {
            throw new WriteOutcomeUnknownException(command.Id, "committed, but the wait for its local apply was cancelled", e);
        }

        return outcome.Status switch
        {
            ApplyStatus.Applied => new ClusterWriteResult(outcome.Index, WasRetry: false),
            ApplyStatus.Duplicate => new ClusterWriteResult(outcome.Index, WasRetry: true),
            ApplyStatus.SessionExpired => throw new SessionExpiredException(command.Id),
            ApplyStatus.Replaced => throw new WriteOutcomeUnknownException(command.Id, "another leader's entry took its place in the log"),
            _ => throw new WriteOutcomeUnknownException(command.Id, $"its entry was applied as {outcome.Status}, which a fresh command never is"),
        };
    }
}
