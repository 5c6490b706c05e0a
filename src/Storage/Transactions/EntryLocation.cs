using Cairn.Journal;

namespace Cairn.Transactions;

/// <summary>
/// Where the journal entry of a transaction published before its write (a lazy or group commit) ends: set once
/// the entry is written (the states of the transaction share this object, so a flush published meanwhile learns
/// it too). Written before the durable watermark passes the transaction and
/// read only for states at or below it, both under the state lock, so no reader sees it change.
/// </summary>
internal sealed class EntryLocation(JournalPosition position)
{
    public JournalPosition Position { get; set; } = position;
}
