namespace Cairn.Journal.Files;

/// <summary>
/// A journal no longer written to but not yet covered by a data-file sync. It is deleted (or kept for
/// reuse) once the synced transaction reaches <see cref="LastTransactionId"/> (-1: holds nothing to replay).
/// <see cref="Shared"/>: recovery found the file shared with other environments (it had more than one
/// name, or held entries of another environment), so it must not be reused.
/// </summary>
internal readonly record struct RetainedJournal(long Sequence, string FilePath, long Size, long LastTransactionId, bool Shared = false);

/// <summary>A synced journal kept to become a later journal without being written with zeros again.</summary>
internal readonly record struct RecyclableJournal(string FilePath, long Size);

/// <summary>A journal file pinned against release for a read: its sequence, path and this environment's last transaction in it (-1: none known).</summary>
internal readonly record struct PinnedJournal(long Sequence, string Path, long LastTransactionId);
