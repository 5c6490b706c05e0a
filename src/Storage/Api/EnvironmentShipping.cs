using Cairn.Shipping;

namespace Cairn;

/// <summary>
/// A primary's side of log shipping: its committed journal entries read back for a replica
/// (<see cref="ReplicaEnvironment"/>) or an incremental backup, and the consumer's acknowledgement that lets retained
/// journals go. Extension methods, so they read as <c>primary.ReadJournalEntries(...)</c>.
/// </summary>
public static class EnvironmentShipping
{
    /// <summary>
    /// The committed journal entries after <paramref name="afterTransactionId"/>, in transaction order, each validated
    /// (header and payload hashes), up to the last transaction committed durably when the call began and never past it.
    /// They come from the journals still on disk: those not yet covered by a data-file sync, and those kept for shipping
    /// (<see cref="StorageOptions.JournalRetentionBytes"/>). The journals read are kept until the enumeration ends;
    /// dispose the enumerator (foreach does) to let them go. A consumer acknowledges what it has taken with
    /// <see cref="AcknowledgeShipped"/>.
    /// </summary>
    /// <param name="environment">The primary.</param>
    /// <param name="afterTransactionId">The last transaction the consumer has (a full backup's, or the last entry it applied).</param>
    /// <exception cref="JournalEntriesNotRetainedException">Entries right after <paramref name="afterTransactionId"/> are gone (thrown by the enumeration): take a new full backup.</exception>
    /// <exception cref="JournalCorruptionException">A journal is damaged in the range read.</exception>
    public static IEnumerable<ShippedJournalEntry> ReadJournalEntries(this StorageEnvironment environment, long afterTransactionId)
    {
        ArgumentNullException.ThrowIfNull(environment);
        ArgumentOutOfRangeException.ThrowIfNegative(afterTransactionId);
        environment.ThrowIfDisposed();
        // Entries up to the durable watermark are durable (a lazy or group-committed transaction is published before
        // its write, so the published state may be ahead). Taken before the files are pinned, so every file holding
        // one of them is among the pinned.
        long upTo = environment.Parts.States.DurableUpTo;
        return Read(environment, afterTransactionId, upTo);
    }

    private static IEnumerable<ShippedJournalEntry> Read(StorageEnvironment environment, long after, long upTo)
    {
        var journal = environment.Parts.Journal;
        var journals = journal.PinForReading();
        try
        {
            var hint = Volatile.Read(ref environment.ShippingScanHint);
            foreach (var entry in JournalEntryScan.Read(journals, environment.EnvironmentId, environment.DirectoryPath, after, upTo, hint,
                stopped => Volatile.Write(ref environment.ShippingScanHint, stopped)))
                yield return entry;
        }
        finally
        {
            foreach (var file in journals)
                journal.UnpinPath(file.Path);
        }
    }

    /// <summary>
    /// Tells the environment that its shipping consumer has taken every transaction up to <paramref name="transactionId"/>:
    /// with <see cref="StorageOptions.JournalRetentionBytes"/> set, journals holding only such transactions may go at the
    /// next data-file sync. Without retention it changes nothing. It never moves back.
    /// </summary>
    public static void AcknowledgeShipped(this StorageEnvironment environment, long transactionId)
    {
        ArgumentNullException.ThrowIfNull(environment);
        environment.ThrowIfDisposed();
        environment.Parts.Journal.Retention.Acknowledge(transactionId);
    }
}
