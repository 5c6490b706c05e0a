namespace Cairn.Journal.Files;

/// <summary>
/// A journal no longer written to but not yet covered by a data-file sync. It is deleted (or kept for
/// reuse) once the synced transaction reaches <see cref="LastTransactionId"/> (-1: holds nothing to replay).
/// </summary>
internal readonly record struct RetainedJournal(long Sequence, string FilePath, long Size, long LastTransactionId);

/// <summary>A synced journal kept to become a later journal without being written with zeros again.</summary>
internal readonly record struct RecyclableJournal(string FilePath, long Size);
