namespace Cairn.Journal.Files;

/// <summary>
/// The journal files an environment opens with, as recovery left them: the journals to keep until a
/// sync covers them (in log order), the synced files kept for reuse, and the numbers to name new files
/// with, above every name in use so that a new file is never taken for an old one.
/// </summary>
internal sealed record JournalFileSet(
    long NextSequence,
    IReadOnlyList<RetainedJournal> Retained,
    IReadOnlyList<RecyclableJournal> Recyclable,
    long NextRecyclableNumber)
{
    /// <summary>A folder with no journal and no spare in it.</summary>
    public static JournalFileSet Empty(long nextSequence) => new(nextSequence, [], [], 1);
}
