namespace Cairn.Merger;

/// <summary>The asynchronous slow paths of the merger's API (kept out of the environment's unsafe code).</summary>
internal static class MergerBackPressure
{
    /// <summary>The queue was full: wait for room (allocates; only under back-pressure), then for the operation.</summary>
    public static async ValueTask EnqueueWhenRoom<TTransaction>(MergerQueue<TTransaction> queue, MergedOperation<TTransaction> operation,
        ValueTask task, CancellationToken cancellationToken) where TTransaction : class
    {
        await WaitForRoom(queue, operation, cancellationToken).ConfigureAwait(false);
        await task.ConfigureAwait(false);
    }

    public static async ValueTask<TResult> EnqueueWhenRoom<TTransaction, TResult>(MergerQueue<TTransaction> queue,
        MergedOperation<TTransaction> operation, ValueTask<TResult> task, CancellationToken cancellationToken) where TTransaction : class
    {
        await WaitForRoom(queue, operation, cancellationToken).ConfigureAwait(false);
        return await task.ConfigureAwait(false);
    }

    private static async ValueTask WaitForRoom<TTransaction>(MergerQueue<TTransaction> queue, MergedOperation<TTransaction> operation,
        CancellationToken cancellationToken) where TTransaction : class
    {
        try
        {
            await queue.WaitForRoomAsync(operation, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // Never queued: completing it with the error is what reports it (and returns the object to its pool).
            operation.Fail(e);
        }
    }

    /// <summary>Stops the merger off the caller's thread (it drains the queue), then closes.</summary>
    public static async ValueTask StopThenDispose(Action stop, Action dispose)
    {
        await Task.Run(stop).ConfigureAwait(false);
        dispose();
    }
}
