namespace Cairn.Merger;

/// <summary>The asynchronous slow paths of the merger's API (kept out of the environment's unsafe code).</summary>
internal static class MergerBackPressure
{
    /// <summary>The queue was full: wait for room (allocates; only under back-pressure), then for the operation.</summary>
    public static async ValueTask EnqueueWhenRoom(TransactionMerger merger, MergedOperation operation, ValueTask task,
        CancellationToken cancellationToken)
    {
        await WaitForRoom(merger, operation, cancellationToken).ConfigureAwait(false);
        await task.ConfigureAwait(false);
    }

    public static async ValueTask<TResult> EnqueueWhenRoom<TResult>(TransactionMerger merger, MergedOperation operation,
        ValueTask<TResult> task, CancellationToken cancellationToken)
    {
        await WaitForRoom(merger, operation, cancellationToken).ConfigureAwait(false);
        return await task.ConfigureAwait(false);
    }

    private static async ValueTask WaitForRoom(TransactionMerger merger, MergedOperation operation, CancellationToken cancellationToken)
    {
        try
        {
            await merger.WaitForRoomAsync(operation, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // Never queued: completing it with the error is what reports it (and returns the object to its pool).
            operation.Fail(e);
        }
    }

    public static async ValueTask StopThenDispose(TransactionMerger merger, StorageEnvironment environment)
    {
        await Task.Run(merger.Stop).ConfigureAwait(false);
        environment.Dispose();
    }
}
