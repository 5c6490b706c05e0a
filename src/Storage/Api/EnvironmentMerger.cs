using Cairn.Commit;
using Cairn.Diagnostics;
using Cairn.Errors;
using Cairn.Merger;
using Cairn.Transactions;

namespace Cairn;

/// <summary>
/// An environment's front to its transaction merger: creates the merger on the first <c>WriteAsync</c> or <c>Write</c>,
/// queues callers' operations (waiting for room on the caller's thread or asynchronously), and stops it at close. Kept
/// out of <see cref="StorageEnvironment"/>, whose <c>WriteAsync</c> and <c>Write</c> are its public face.
/// </summary>
internal sealed class EnvironmentMerger(StorageEnvironment environment, TransactionCommitter committer, FailureLatch failure, StorageOptions options)
{
    // Guards creating the merger (on the first merged write) against a concurrent close.
    private readonly Lock _gate = new();
    private TransactionMerger<WriteTransaction>? _merger;

    /// <summary>What the merger has done so far (all zeros until the first merged write).</summary>
    public MergerStatistics Statistics { get; } = new();

    /// <summary>Operations waiting in the merger's queue (0 before it exists).</summary>
    public long QueueDepth => Volatile.Read(ref _merger)?.Queue.Depth ?? 0;

    /// <summary><c>WriteAsync</c>: queues <paramref name="merged"/>; its task completes when its transaction is durable.</summary>
    public ValueTask Enqueue(MergedOperation<WriteTransaction> merged, ValueTask task, CancellationToken cancellationToken)
    {
        var queue = Merger.Queue;
        return queue.TryEnqueue(merged, cancellationToken) ? task : MergerBackPressure.EnqueueWhenRoom(queue, merged, task, cancellationToken);
    }

    /// <inheritdoc cref="Enqueue(MergedOperation{WriteTransaction}, ValueTask, CancellationToken)"/>
    public ValueTask<TResult> Enqueue<TResult>(MergedOperation<WriteTransaction> merged, ValueTask<TResult> task, CancellationToken cancellationToken)
    {
        var queue = Merger.Queue;
        return queue.TryEnqueue(merged, cancellationToken) ? task : MergerBackPressure.EnqueueWhenRoom(queue, merged, task, cancellationToken);
    }

    /// <summary>The checks a blocked caller (<c>Write</c>) gets as exceptions at once, before it rents its operation.</summary>
    public MergerQueue<WriteTransaction> BlockingQueue(CancellationToken cancellationToken)
    {
        var merger = Merger;
        if (merger.IsMergerThread)
            throw new InvalidOperationException("Write was called from inside a merged operation, which would wait for itself: do the work in the operation's own transaction.");
        cancellationToken.ThrowIfCancellationRequested();
        failure.ThrowIfFailed();
        return merger.Queue;
    }

    /// <summary>Queues the operation with this thread's event to wake it; a full queue is waited out on this thread.</summary>
    public static void EnqueueBlocking(MergerQueue<WriteTransaction> queue, MergedOperation<WriteTransaction> operation, CancellationToken cancellationToken)
    {
        operation.Waiter = ThreadWaiter.Reset();
        if (!queue.TryEnqueue(operation, cancellationToken))
            queue.WaitForRoom(operation, cancellationToken);
    }

    /// <summary><c>DisposeAsync</c>: drains the queue without blocking, then closes; a plain close when no merger runs.</summary>
    public ValueTask StopThenDispose(Action dispose)
    {
        var merger = _merger;
        if (merger is null)
        {
            dispose();
            return ValueTask.CompletedTask;
        }
        return MergerBackPressure.StopThenDispose(merger.Stop, dispose);
    }

    /// <summary>The close's first step: no new operations, every queued one committed (or failed).</summary>
    public void Stop()
    {
        TransactionMerger<WriteTransaction>? merger;
        lock (_gate)
            merger = _merger;
        merger?.Stop();
    }

    public void Dispose() => _merger?.Dispose();

    private TransactionMerger<WriteTransaction> Merger
    {
        get
        {
            environment.ThrowIfDisposed();
            var merger = Volatile.Read(ref _merger);
            if (merger is not null)
                return merger;
            lock (_gate)
            {
                environment.ThrowIfDisposed();
                return _merger ??= new TransactionMerger<WriteTransaction>(
                    new CommitterMergerPipeline<WriteTransaction>(committer, new MergedWriteTransactions(environment)), Settings(options), Statistics);
            }
        }
    }

    private static MergerSettings Settings(StorageOptions options)
        => new(options.MergerMaxQueuedOperations, options.MergerQueueTimeout,
            Math.Max(1, options.MergerMaxTransactionBytes / Paging.StorageConstants.PageSize), options.MergerMaxBatchDuration,
            options.MergerReturnGrace);

    /// <summary>The merger's transactions as callers' operations see them: the environment's <see cref="WriteTransaction"/>.</summary>
    private sealed class MergedWriteTransactions(StorageEnvironment environment) : IMergedTransactionShell<WriteTransaction>
    {
        public WriteTransaction Wrap(ReadContext context, WriteTransaction? kept)
            => kept?.RebindForMerger() ?? new(environment, context, merged: true);

        public void SaveForCommit(WriteTransaction transaction) => transaction.SaveForMergedCommit();

        public void Expire(WriteTransaction transaction) => transaction.Expire();
    }
}
