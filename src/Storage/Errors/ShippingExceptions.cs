namespace Cairn;

/// <summary>
/// A consumer asked for journal entries after a transaction whose successors the environment no longer keeps:
/// the journals holding them were released (synced and not retained, or dropped when
/// <see cref="StorageOptions.JournalRetentionBytes"/> was reached before the consumer acknowledged them). The
/// consumer cannot catch up from the journals; it needs a new full backup and ships from that backup's transaction.
/// </summary>
public sealed class JournalEntriesNotRetainedException(string directory, long afterTransactionId, long firstAvailableTransactionId)
    : InvalidOperationException($"The environment in '{directory}' no longer keeps the journal entries after transaction {afterTransactionId}: " +
        (firstAvailableTransactionId > 0
            ? $"the oldest entry it still has is of transaction {firstAvailableTransactionId}. "
            : "it keeps none of them. ") +
        "Take a new full backup and ship from its transaction.")
{
    /// <summary>The position the consumer asked to read after.</summary>
    public long AfterTransactionId { get; } = afterTransactionId;

    /// <summary>The oldest transaction whose entry is still there, or -1 when none after the position is.</summary>
    public long FirstAvailableTransactionId { get; } = firstAvailableTransactionId;
}

/// <summary>
/// A replica refused a shipped journal entry (<see cref="ReplicaEnvironment.Apply"/>): it does not follow the
/// replica's last applied transaction, it belongs to another environment, or it is damaged. Nothing of it was
/// applied; the replica stays usable at <see cref="LastAppliedTransactionId"/>.
/// </summary>
public abstract class ShippedEntryRefusedException : IOException
{
    /// <summary>A refusal of the entry of <paramref name="transactionId"/> at <paramref name="source"/>.</summary>
    /// <param name="source">Where the entry came from (a shipped-entries file and offset, or "an entry"), for the message.</param>
    /// <param name="lastApplied">The replica's last applied transaction (-1 when no replica is involved: a stream read on its own).</param>
    /// <param name="transactionId">The transaction the entry says it holds (-1 when its header cannot be read).</param>
    /// <param name="reason">Why, in words.</param>
    protected ShippedEntryRefusedException(string source, long lastApplied, long transactionId, string reason)
        : base(lastApplied >= 0
            ? $"The replica refused {source} (transaction {transactionId}; it has applied up to {lastApplied} and needs {lastApplied + 1}): {reason}"
            : $"Refused {source} (transaction {transactionId}): {reason}")
    {
        EntrySource = source;
        LastAppliedTransactionId = lastApplied;
        TransactionId = transactionId;
        Reason = reason;
    }

    /// <summary>Where the entry came from: a shipped-entries stream and the frame's offset in it, or "an entry".</summary>
    public string EntrySource { get; }

    /// <summary>The replica's last applied transaction: the next entry must be of the one after it (-1 when the stream was read on its own).</summary>
    public long LastAppliedTransactionId { get; }

    /// <summary>The transaction the refused entry says it holds (-1 when its header could not be read).</summary>
    public long TransactionId { get; }

    /// <summary>Why the entry was refused, in words.</summary>
    public string Reason { get; }
}

/// <summary>The shipped entry is not of the replica's next transaction: one is missing (a gap) or it was applied already.</summary>
public sealed class ShippedEntryOutOfOrderException(string source, long lastApplied, long transactionId)
    : ShippedEntryRefusedException(source, lastApplied, transactionId, transactionId > lastApplied + 1
        ? $"transactions {lastApplied + 1} to {transactionId - 1} are missing (a gap in the shipped entries)"
        : "that transaction was applied already");

/// <summary>The shipped entry was written by another environment than the one the replica is a copy of.</summary>
public sealed class ShippedEntryFromOtherEnvironmentException(string source, long lastApplied, long transactionId, Guid entryEnvironment, Guid replicaEnvironment)
    : ShippedEntryRefusedException(source, lastApplied, transactionId,
        $"it belongs to environment {entryEnvironment}, the replica is a copy of environment {replicaEnvironment}")
{
    /// <summary>The environment the entry says wrote it.</summary>
    public Guid EntryEnvironmentId { get; } = entryEnvironment;
}

/// <summary>The shipped entry (or its frame in a shipped-entries stream) does not validate: a checksum, a size or its framing is wrong, or it is cut short.</summary>
public sealed class ShippedEntryDamagedException(string source, long lastApplied, long transactionId, string reason)
    : ShippedEntryRefusedException(source, lastApplied, transactionId, reason);

/// <summary>
/// A local commit was asked of a replica's engine (<see cref="ReplicaEnvironment"/>): it changes only by applying shipped
/// entries. Internal: <see cref="ReplicaEnvironment"/> has no write member and never hands its engine out, so no caller
/// can reach it; it fences the commit path should one ever be added.
/// </summary>
internal sealed class ReplicaReadOnlyException(string directory, string operation)
    : InvalidOperationException($"The environment in '{directory}' is a read-only replica: {operation} is not allowed. It changes only through Apply and ApplyShippedEntries; " +
        "promote it with ReplicaEnvironment.Promote to write.")
{
    /// <summary>The replica's directory.</summary>
    public string Directory { get; } = directory;
}
