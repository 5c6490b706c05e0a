namespace Cairn.Merger;

/// <summary>
/// One event per thread for callers that block until their operation is durable (the blocking <c>Write</c>):
/// a blocked thread waits for one operation at a time, so one event serves all its waits and nothing is
/// allocated per wait. It spins briefly before it sleeps, as a thread blocking on an event or a task does by
/// default (and as RocksDB's waiting writers do).
/// </summary>
internal static class ThreadWaiter
{
    [ThreadStatic] private static ManualResetEventSlim? t_event;

    /// <summary>This thread's event, reset, ready for the operation about to be queued to set it.</summary>
    public static ManualResetEventSlim Reset()
    {
        var waiter = t_event ??= new ManualResetEventSlim(false);
        waiter.Reset();
        return waiter;
    }
}
