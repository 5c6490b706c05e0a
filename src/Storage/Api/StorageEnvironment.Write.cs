using Cairn.Merger;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Runs <paramref name="operation"/> in a merged transaction as
    /// <see cref="WriteAsync{TState}(TState, Action{WriteTransaction, TState}, CancellationToken)"/> does, blocking the
    /// calling thread until that transaction is durable: for thread-per-request hosts, without a <see cref="Task"/>
    /// per call (it allocates nothing in steady state: the thread waits on an event of its own).
    /// </summary>
    /// <remarks>
    /// Everything said of <c>WriteAsync</c> holds: the operation runs later on the merger's thread, may run more than
    /// once, must not commit or dispose the transaction; its exception, a cancellation before the merger took it, a
    /// full queue (<see cref="MergerQueueFullException"/>) or a failed environment
    /// (<see cref="EnvironmentFailedException"/>) is thrown here. The thread that finishes the transaction (the
    /// journal writer) wakes the caller itself, so no thread-pool thread is needed to complete a <c>Write</c>.
    /// </remarks>
    /// <exception cref="InvalidOperationException">Called from inside a merged operation (it would wait for itself).</exception>
    /// <exception cref="ObjectDisposedException">The environment is closing or closed.</exception>
#pragma warning disable RS0026 // as for WriteAsync: the optional CancellationToken is .NET's own pattern; the overloads differ in their delegate
    public void Write<TState>(TState state, Action<WriteTransaction, TState> operation, CancellationToken cancellationToken = default)
#pragma warning restore RS0026
    {
        ArgumentNullException.ThrowIfNull(operation);
        var queue = _mergedWrites.BlockingQueue(cancellationToken);
        var merged = MergedAction<TState>.Rent(operation, state);
        EnvironmentMerger.EnqueueBlocking(queue, merged, cancellationToken);
        merged.Wait();
    }

    /// <summary>
    /// Like <see cref="Write{TState}(TState, Action{WriteTransaction, TState}, CancellationToken)"/>, for an operation
    /// with a result, returned once the transaction holding the operation is durable.
    /// </summary>
    /// <exception cref="InvalidOperationException">Called from inside a merged operation (it would wait for itself).</exception>
    /// <exception cref="ObjectDisposedException">The environment is closing or closed.</exception>
#pragma warning disable RS0026 // as above
    public TResult Write<TState, TResult>(TState state, Func<WriteTransaction, TState, TResult> operation, CancellationToken cancellationToken = default)
#pragma warning restore RS0026
    {
        ArgumentNullException.ThrowIfNull(operation);
        var queue = _mergedWrites.BlockingQueue(cancellationToken);
        var merged = MergedFunction<TState, TResult>.Rent(operation, state);
        EnvironmentMerger.EnqueueBlocking(queue, merged, cancellationToken);
        return merged.Wait();
    }
}
