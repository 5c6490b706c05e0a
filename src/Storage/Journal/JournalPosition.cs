namespace Cairn.Journal;

/// <summary>
/// A place in the environment's log: the journal file (its sequence number) and the byte offset just
/// past an entry. A state carries the position after the entry of its transaction, so a sync can
/// tell recovery exactly where to resume.
/// </summary>
internal readonly record struct JournalPosition(long Sequence, long EndOffset)
{
    public static JournalPosition None => default;
}
