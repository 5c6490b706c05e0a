using Cairn.Cluster.Node;
using Cairn.Cluster.StateMachine;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Threading;

namespace Cairn.Cluster;

public sealed partial class ClusterNode
{
    private readonly WriteBatcher batcher; // the leader's writes, one Raft entry per replication round

    /// <summary>Raft entries this node's writes were sent in, and the commands they carried (since it started).</summary>
    internal (long Entries, long Commands) BatchCounts => (batcher.Entries, batcher.Commands);

    /// <summary>
    /// Replicates <paramref name="command"/> from this node, which must lead. Completes when a majority holds the entry
    /// and this node has applied it, so a read here afterwards sees it. The command goes in the next Raft entry this
    /// node sends, with every other command waiting then (<see cref="ClusterNodeOptions.MaxBatchCommands"/>): one log
    /// flush, one replication round and one apply transaction for them all, each with its own outcome.
    /// </summary>
    /// <exception cref="NotClusterLeaderException">This node does not lead, or stopped leading before the command's entry was appended; nothing was appended.</exception>
    /// <exception cref="WriteOutcomeUnknownException">Perhaps appended, but the commit is not known; retry with the same id.</exception>
    /// <exception cref="SessionExpiredException">Refused by every node: the client's session is not in the dedup table.</exception>
    /// <exception cref="ClusterNodeFailedException">This node stopped itself (its state machine failed); nothing was appended.</exception>
    public async Task<ClusterWriteResult> WriteAsync(ClusterCommand command, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(command);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref disposed) != 0, this);
        ThrowIfFailed();
        if (!IsLeader)
            throw new NotClusterLeaderException(LocalEndPoint, Leader);

        ApplyOutcome outcome;
        try
        {
            // A caller's cancellation ends its wait only: the command may already be in an entry on its way.
            outcome = await batcher.SubmitAsync(command).WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception failure)
        {
            throw Refusal(command.Id, failure, cancellationToken);
        }

        if (outcome.Status == ApplyStatus.Applied)
            batcher.Rounds?.Record(RoundStage.CallerCompleted, outcome.Index);
        return outcome.Status switch
        {
            ApplyStatus.Applied => new ClusterWriteResult(outcome.Index, WasRetry: false),
            ApplyStatus.Duplicate => new ClusterWriteResult(outcome.Index, WasRetry: true),
            ApplyStatus.SessionExpired => throw new SessionExpiredException(command.Id),
            ApplyStatus.Replaced => throw new WriteOutcomeUnknownException(command.Id, "another leader's entry took its place in the log"),
            _ => throw new WriteOutcomeUnknownException(command.Id, $"its entry was applied as {outcome.Status}, which a fresh command never is"),
        };
    }

    /// <summary>Sends one batch entry: refused before the append if this node failed or does not lead.</summary>
    private async Task ReplicateBatchAsync(ReadOnlyMemory<byte> entry, ApplyWaiter waiter)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref disposed) != 0, this);
        ThrowIfFailed();
        if (!IsLeader)
            throw new NotClusterLeaderException(LocalEndPoint, Leader);
        // Appends, then waits until this node has applied the entry's index (so a majority held it). No token: a
        // writer's cancellation must not cancel the others' entry; DotNext ends the wait when leadership or the node ends.
        await raft.ReplicateAsync(entry, waiter).ConfigureAwait(false);
    }

    /// <summary>What the writer of <paramref name="id"/> is told when its entry failed with <paramref name="failure"/> (shared by the entry's writers).</summary>
    private Exception Refusal(OperationId id, Exception failure, CancellationToken cancellationToken) => failure switch
    {
        // Refused before the entry was appended: nothing of it can commit.
        NotClusterLeaderException e => new NotClusterLeaderException(e.Node, e.Leader),
        ClusterNodeFailedException e => new ClusterNodeFailedException(e.Node, e.Cause),
        ObjectDisposedException => new ObjectDisposedException(nameof(ClusterNode), $"Node {LocalEndPoint} was disposed before the write was sent."),
        // DotNext may refuse before or after appending; either way a retry with the same id is what is safe.
        NotLeaderException => new WriteOutcomeUnknownException(id, $"node {LocalEndPoint} lost its leadership", failure),
        // DotNext ends the wait so when its applier stops: this node failed (fail-stop) with the entry appended.
        PendingTaskInterruptedException => new WriteOutcomeUnknownException(id, $"node {LocalEndPoint} failed while waiting for the commit", failure),
        // The caller's token, or DotNext's own (the node stopping): appended or not, the outcome is not known here.
        OperationCanceledException => new WriteOutcomeUnknownException(id,
            cancellationToken.IsCancellationRequested ? "the wait for the commit was cancelled" : $"node {LocalEndPoint} stopped waiting for the commit", failure),
        // The log's own failure (its disk): the entry may or may not have been written.
        _ => new WriteOutcomeUnknownException(id, $"node {LocalEndPoint} could not replicate it ({failure.GetType().Name}: {failure.Message})", failure),
    };
}
