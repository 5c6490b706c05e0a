namespace Cairn;

public sealed partial class StorageEnvironment
{
    // Where the last ReadJournalEntries stopped, so a consumer that reads on from there does not scan its journal from the start.
    internal Shipping.JournalEntryScan.ScanHint? ShippingScanHint;

    /// <summary>
    /// Bytes of synced journals kept on disk only because a shipping consumer has not acknowledged them
    /// (<see cref="StorageOptions.JournalRetentionBytes"/> bounds them); 0 without retention.
    /// </summary>
    public long JournalBytesRetainedForShipping => _journal.ShippingRetainedBytes;
}
