namespace Cairn.Tests.Support;

/// <summary>
/// Opening what a killed child process had open. The kernel may hold the killed process's lock on the data file
/// until it has torn down the process's io_uring, which on a loaded machine can take longer than the engine's
/// default <see cref="StorageOptions.LockWaitTimeout"/>: a test that opened with the default would pass or fail by
/// luck.
/// </summary>
public static class KilledProcess
{
    /// <summary>How long an open after a kill waits for the lock: the wait ends as soon as the kernel lets go.</summary>
    public static readonly TimeSpan LockWait = TimeSpan.FromMinutes(1);

    /// <summary><paramref name="options"/>, waiting out a killed process's lock.</summary>
    public static StorageOptions Reopening(StorageOptions options) => options with { LockWaitTimeout = LockWait };
}
