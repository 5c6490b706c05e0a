using Cairn.Journal;

namespace Cairn.Transactions;

/// <summary>
/// Where a committed transaction's journal entry ends. Known at publication for a durable commit; for a
/// lazy one, set once its entry is written (the states of the transaction share this object, so a flush
/// published meanwhile learns it too). Written before the durable watermark passes the transaction and
/// read only for states at or below it, both under the state lock, so no reader sees it change.
/// </summary>
internal sealed class EntryLocation(JournalPosition position)
{
    public JournalPosition Position { get; set; } = position;
}
