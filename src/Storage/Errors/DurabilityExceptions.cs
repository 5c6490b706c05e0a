namespace Cairn;

/// <summary>
/// An I/O error at or after a journal write (or while flushing or syncing the data file) left the
/// environment in a state this process can no longer vouch for: every later write transaction throws
/// this, naming the first failure, until the environment is disposed and opened again, when recovery
/// decides from the files what survived. Read transactions keep working on what was committed.
/// </summary>
public sealed class EnvironmentFailedException(string directory, string operation, Exception cause)
    : IOException($"The environment in '{directory}' failed while {operation} and accepts no more writes; dispose and reopen it to recover. Cause: {cause.Message}", cause)
{
    /// <summary>The failed environment's directory.</summary>
    public string Directory { get; } = directory;

    /// <summary>What the environment was doing when it failed (writing the journal, flushing, syncing).</summary>
    public string Operation { get; } = operation;
}

/// <summary>
/// A write transaction waited <see cref="Timeout"/> for scratch memory (modified and not yet flushed page
/// versions) to fall below <see cref="StorageOptions.MaxScratchBytes"/> and it did not: the disk is slower
/// than the commits, or a long-lived read transaction keeps old page versions from being flushed.
/// </summary>
public sealed class ScratchMemoryExhaustedException(long bytesInUse, long limit, TimeSpan timeout, long oldestReaderTransaction, long lastCommittedTransaction)
    : TimeoutException($"Scratch memory holds {bytesInUse >> 10} KiB, above the {limit >> 10} KiB limit, and the flusher could not bring it down within {timeout.TotalSeconds:F0} s " +
        (oldestReaderTransaction < lastCommittedTransaction
            ? $"(the oldest read transaction still sees transaction {oldestReaderTransaction} of {lastCommittedTransaction}: page versions newer than that cannot be flushed until it ends)."
            : "(the disk is not keeping up with the commits)."))
{
    /// <summary>Bytes of scratch memory in use when the wait gave up.</summary>
    public long BytesInUse { get; } = bytesInUse;

    /// <summary>The limit, in bytes (<see cref="StorageOptions.MaxScratchBytes"/>).</summary>
    public long Limit { get; } = limit;

    /// <summary>How long the transaction waited (<see cref="StorageOptions.ScratchWaitTimeout"/>).</summary>
    public TimeSpan Timeout { get; } = timeout;
}

/// <summary>
/// The transaction merger's queue stayed full (<see cref="StorageOptions.MergerMaxQueuedOperations"/>
/// operations) for <see cref="StorageOptions.MergerQueueTimeout"/>: the operation was not queued.
/// </summary>
public sealed class MergerQueueFullException(int capacity, TimeSpan timeout)
    : TimeoutException($"The transaction merger's queue stayed full ({capacity} operations) for {timeout.TotalSeconds:F1} s; the operation was not queued.")
{
    /// <summary>The queue's capacity in operations (<see cref="StorageOptions.MergerMaxQueuedOperations"/>).</summary>
    public int Capacity { get; } = capacity;
}
