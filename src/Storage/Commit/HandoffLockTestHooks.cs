namespace Cairn.Commit;

/// <summary>
/// Test hooks of a <see cref="HandoffLock"/>: points where a test holds a thread to make an interleaving of
/// waiters and releasers deterministic. The lock creates them only when a test asks
/// (<see cref="HandoffLock.ForTestingPurposesOnly"/>): in production there are none.
/// </summary>
internal sealed class HandoffLockTestHooks
{
    /// <summary>On a waiting thread, before each time it sleeps on its signal.</summary>
    public Action? BeforeWait { get; set; }

    /// <summary>On a releasing thread that handed the lock to a waiter, after the gate is left and before the waiter is signalled.</summary>
    public Action? Granting { get; set; }
}
