using Cairn.Journal;

namespace Cairn.Transactions;

/// <summary>
/// Where the journal entry of a transaction published before its write (a lazy or group commit) ends: set once
/// the entry is written (the states of the transaction share this object, so a flush published meanwhile learns
/// it too). Written before the durable watermark passes the transaction and
/// read only for states at or below it, both under the state lock, so no reader sees it change.
/// </summary>
internal sealed class EntryLocation(JournalPosition position, bool startsBatch = false)
{
    public JournalPosition Position { get; set; } = position;

    /// <summary>
    /// The entry is the first of a journal write (its queue's batch was empty): the transaction before it ended the
    /// previous write, so the durable watermark may stop there (<see cref="StatePublisher"/> keeps that state whole).
    /// </summary>
    public bool StartsBatch { get; } = startsBatch;
}
