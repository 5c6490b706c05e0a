using System.Runtime.ExceptionServices;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.StateMachine;

/// <summary>
/// The state machine as DotNext's log drives it, made fail-stop: the first exception an apply throws (the environment
/// latched on a full disk, a corrupt entry, a snapshot install that could not put the node back as it was) is recorded
/// in <see cref="Failure"/> for the node to stop on, and no later entry is applied, since skipping one would break the
/// order every node applies in. DotNext's applier stops for good after such an exception, so without this the node
/// would go on voting and replicating with its state machine silently stuck (docs/decisions.md, issue 28, X fail-stop).
/// A cancellation while the log closes is not a failure.
/// </summary>
/// <remarks>
/// A snapshot install is not applied by that applier: DotNext calls it in the leader's request, and an exception from it
/// goes back to the leader (which sends the snapshot again) and leaves the log as it was. So an install that failed
/// while <paramref name="holdsEnvironment"/> still says the node has a whole environment (the stream broke or was
/// damaged before the swap, or the swap was rolled back) is the leader's request failing, not the node's: stopping
/// there turned every connection reset during a transfer into a process restart. Only an install that lost the
/// environment (the rollback failed too) stops the node.
/// </remarks>
internal sealed class FailStopStateMachine(IStateMachine inner, Func<bool> holdsEnvironment) : IStateMachine
{
    private readonly TaskCompletionSource<Exception> failure = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Completes with the apply's exception when one fails; never completes while every apply succeeds.</summary>
    public Task<Exception> Failure => failure.Task;

    ISnapshot? ISnapshotManager.Snapshot => inner.Snapshot;

    ValueTask ISnapshotManager.ReclaimGarbageAsync(long watermark, CancellationToken token) => inner.ReclaimGarbageAsync(watermark, token);

    public async ValueTask<long> ApplyAsync(LogEntry entry, CancellationToken token)
    {
        if (failure.Task.IsCompleted)
            ExceptionDispatchInfo.Throw(failure.Task.Result);
        try
        {
            return await inner.ApplyAsync(entry, token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (token.IsCancellationRequested)
        {
            throw;
        }
        catch (Exception) when (entry.IsSnapshot && holdsEnvironment())
        {
            throw;
        }
        catch (Exception cause)
        {
            failure.TrySetResult(cause);
            throw;
        }
    }
}
