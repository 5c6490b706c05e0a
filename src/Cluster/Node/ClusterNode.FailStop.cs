using Cairn.Cluster.StateMachine;

namespace Cairn.Cluster;

public sealed partial class ClusterNode
{
    /// <summary>
    /// Completes when this node has stopped itself because its state machine failed (<see cref="ClusterNodeFailedException.Cause"/>:
    /// e.g. its environment latched on a full disk): its Raft member is stopped, so it neither votes nor leads nor
    /// takes entries, and it refuses reads and writes with <see cref="ClusterNodeFailedException"/>. Its host should
    /// dispose it and start it again (a new process, or <see cref="StartAsync"/> on the same folder), which replays
    /// its Raft log from its last durable point. Never completes while the node is healthy.
    /// </summary>
    public Task<ClusterNodeFailedException> Failure { get; }

    /// <summary>Whether this node's state machine failed: it refuses reads and writes; <see cref="Failure"/> completes once its member is stopped.</summary>
    public bool HasFailed => applier.Failure.IsCompleted;

    /// <summary>Stops the Raft member once the state machine fails, and reports why (the node's fail-stop).</summary>
    private async Task<ClusterNodeFailedException> StopOnFailureAsync()
    {
        var cause = await applier.Failure.ConfigureAwait(false);
        try
        {
            await raft.StopAsync().ConfigureAwait(false);
        }
        catch (Exception stopFailure) when (stopFailure is ObjectDisposedException or OperationCanceledException)
        {
            // Disposed or stopping already: the member is stopped either way.
        }

        return new ClusterNodeFailedException(LocalEndPoint, cause);
    }

    /// <summary>The node's environment as it is now, for a test to break under the applier.</summary>
    internal StorageEnvironment EnvironmentForTesting => environment.Current;

    private void ThrowIfFailed()
    {
        if (applier.Failure.IsCompleted)
            throw new ClusterNodeFailedException(LocalEndPoint, applier.Failure.Result);
    }
}
