using System.Runtime.ExceptionServices;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.StateMachine;

/// <summary>
/// The state machine as DotNext's log drives it, made fail-stop: the first exception an apply throws (the environment
/// latched on a full disk, a snapshot install that could not finish, a corrupt entry) is recorded in
/// <see cref="Failure"/> for the node to stop on, and no later entry is applied, since skipping one would break the
/// order every node applies in. DotNext's applier stops for good after such an exception, so without this the node
/// would go on voting and replicating with its state machine silently stuck (docs/decisions.md, issue 28, X fail-stop).
/// A cancellation while the log closes is not a failure.
/// </summary>
internal sealed class FailStopStateMachine(IStateMachine inner) : IStateMachine
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
        catch (Exception cause)
        {
            failure.TrySetResult(cause);
            throw;
        }
    }
}
