using Cairn.Shipping;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    // Where the last ReadJournalEntries stopped, so a consumer that reads on from there does not scan its journal from the start.
    private JournalEntryScan.ScanHint? _scanHint;

    /// <summary>
    /// The committed journal entries after <paramref name="afterTransactionId"/>, in transaction order, each validated
    /// (header and payload hashes), up to the last transaction committed durably when the call began and never past it.
    /// They come from the journals still on disk: those not yet covered by a data-file sync, and those kept for shipping
    /// (<see cref="StorageOptions.JournalRetentionBytes"/>). The journals read are kept until the enumeration ends;
    /// dispose the enumerator (foreach does) to let them go. A consumer acknowledges what it has taken with
    /// <see cref="AcknowledgeShipped"/>.
    /// </summary>
    /// <param name="afterTransactionId">The last transaction the consumer has (a full backup's, or the last entry it applied).</param>
    /// <exception cref="JournalEntriesNotRetainedException">Entries right after <paramref name="afterTransactionId"/> are gone (thrown by the enumeration): take a new full backup.</exception>
    /// <exception cref="JournalCorruptionException">A journal is damaged in the range read.</exception>
    public IEnumerable<ShippedJournalEntry> ReadJournalEntries(long afterTransactionId)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(afterTransactionId);
        ThrowIfDisposed();
        // Entries up to the durable watermark are durable (a lazy or group-committed transaction is published before
        // its write, so the published state may be ahead). Taken before the files are pinned, so every file holding
        // one of them is among the pinned.
        long upTo = DurableTransactionId;
        return Read(afterTransactionId, upTo);
    }

    /// <summary>The last transaction whose journal entry is durable: the reader never hands out one past it.</summary>
    private long DurableTransactionId => _states.DurableUpTo;

    private IEnumerable<ShippedJournalEntry> Read(long after, long upTo)
    {
        var journals = _journal.PinForReading();
        try
        {
            var hint = Volatile.Read(ref _scanHint);
            foreach (var entry in JournalEntryScan.Read(journals, EnvironmentId, DirectoryPath, after, upTo, hint,
                stopped => Volatile.Write(ref _scanHint, stopped)))
                yield return entry;
        }
        finally
        {
            foreach (var journal in journals)
                _journal.UnpinPath(journal.Path);
        }
    }

    /// <summary>
    /// Bytes of synced journals kept on disk only because a shipping consumer has not acknowledged them
    /// (<see cref="StorageOptions.JournalRetentionBytes"/> bounds them); 0 without retention.
    /// </summary>
    public long JournalBytesRetainedForShipping => _journal.ShippingRetainedBytes;

    /// <summary>
    /// Tells the environment that its shipping consumer has taken every transaction up to <paramref name="transactionId"/>:
    /// with <see cref="StorageOptions.JournalRetentionBytes"/> set, journals holding only such transactions may go at the
    /// next data-file sync. Without retention it changes nothing. It never moves back.
    /// </summary>
    public void AcknowledgeShipped(long transactionId)
    {
        ThrowIfDisposed();
        _journal.Retention.Acknowledge(transactionId);
    }
}
