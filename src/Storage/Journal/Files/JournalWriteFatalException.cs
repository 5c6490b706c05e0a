namespace Cairn.Journal.Files;

/// <summary>
/// A journal write failed in a way that leaves its outcome unknown (an I/O error, or a full disk whose
/// partial entry could not be wiped): the environment must stop accepting writes.
/// </summary>
internal sealed class JournalWriteFatalException(string journalPath, long offset, Exception inner)
    : IOException($"Writing the journal '{journalPath}' at offset {offset} failed: {inner.Message}", inner)
{
    public string JournalPath { get; } = journalPath;

    public long Offset { get; } = offset;
}
