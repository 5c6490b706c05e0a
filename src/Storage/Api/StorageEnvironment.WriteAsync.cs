using Cairn.Diagnostics;
using Cairn.Merger;

namespace Cairn;

public sealed partial class StorageEnvironment : IAsyncDisposable
{
    /// <summary>
    /// Queues <paramref name="operation"/> to run, with many other callers' operations, in one write
    /// transaction of the transaction merger; the task completes when that transaction is durable.
    /// </summary>
    /// <remarks>
    /// <para>The operation runs later, on the merger's thread: pass what it needs through
    /// <paramref name="state"/> (a static lambda allocates nothing), and copy spans into the state first.
    /// It must not commit or dispose the transaction, and must not block or wait for other work (least of all
    /// another <c>WriteAsync</c>): every other caller's operation waits for it. The transaction it receives is usable
    /// only inside the operation, on the thread running it (kept, or handed to another thread, it throws
    /// <see cref="ObjectDisposedException"/>).</para>
    /// <para>An operation that throws fails alone: the transaction is rolled back and the batch's other
    /// operations run again without it, so an operation may run more than once: keep side effects
    /// other than on the transaction out of it.</para>
    /// <para>Cancellation counts until the merger takes the operation. A full queue
    /// (<see cref="StorageOptions.MergerMaxQueuedOperations"/>) makes the caller wait, up to
    /// <see cref="StorageOptions.MergerQueueTimeout"/>, then the task fails with <see cref="MergerQueueFullException"/>.
    /// A failed journal write fails this and every later operation with <see cref="EnvironmentFailedException"/>.</para>
    /// </remarks>
    // RS0026 (two overloads with optional parameters): the optional CancellationToken is .NET's own pattern, and these
    // overloads differ in their delegate's type, so a call can never become ambiguous through the default.
#pragma warning disable RS0026
    public ValueTask WriteAsync<TState>(TState state, Action<WriteTransaction, TState> operation, CancellationToken cancellationToken = default)
#pragma warning restore RS0026
    {
        ArgumentNullException.ThrowIfNull(operation);
        if (cancellationToken.IsCancellationRequested)
            return ValueTask.FromCanceled(cancellationToken);
        if (_failure.HasFailed)
            return ValueTask.FromException(_failure.Exception());
        var merged = MergedAction<TState>.Rent(operation, state);
        return _mergedWrites.Enqueue(merged, merged.Task, cancellationToken);
    }

    /// <summary>
    /// Like <see cref="WriteAsync{TState}(TState, Action{WriteTransaction, TState}, CancellationToken)"/>, for an
    /// operation with a result, which the task returns once the transaction holding the operation is durable.
    /// </summary>
#pragma warning disable RS0026 // as above
    public ValueTask<TResult> WriteAsync<TState, TResult>(TState state, Func<WriteTransaction, TState, TResult> operation,
        CancellationToken cancellationToken = default)
#pragma warning restore RS0026
    {
        ArgumentNullException.ThrowIfNull(operation);
        if (cancellationToken.IsCancellationRequested)
            return ValueTask.FromCanceled<TResult>(cancellationToken);
        if (_failure.HasFailed)
            return ValueTask.FromException<TResult>(_failure.Exception());
        var merged = MergedFunction<TState, TResult>.Rent(operation, state);
        return _mergedWrites.Enqueue(merged, merged.Task, cancellationToken);
    }

    /// <summary>What the transaction merger has done so far (all zeros until the first <c>WriteAsync</c>).</summary>
    public MergerStatistics MergerStatistics => _mergedWrites.Statistics;

    /// <summary>Drains the merger's queue (every queued operation runs and commits), then closes as <see cref="Dispose"/> does.</summary>
    public ValueTask DisposeAsync()
    {
        if (Volatile.Read(ref _disposed) != 0 || _committer.UserWriterOpen)
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
        return _mergedWrites.StopThenDispose(Dispose);
    }
}
