using Cairn.Diagnostics;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Pal;
using Microsoft.Extensions.Logging;

namespace Cairn.Recovery;

/// <summary>
/// Judging where a journal's log ended (docs/on-disk-format.md, "Journal files"): whether the next journal continues it,
/// whether a valid later entry makes the end damage, whether the journal is another environment's; and the cut of a torn
/// tail, done once the replay is over. All of it on the reading thread.
/// </summary>
internal sealed unsafe partial class JournalRecovery
{
    /// <summary>
    /// Whether the first valid entry of this environment in the journals after <paramref name="index"/> (each
    /// read from its start, past valid entries of others, up to its first invalid or empty block) is of the
    /// expected transaction. A journal without one passes the question on to the next: a root's file can be
    /// filled by its branches' entries alone, and the root's log goes on in a later file.
    /// </summary>
    private bool NextJournalContinues(List<(long Sequence, string Path)> journals, int index)
    {
        for (int next = index + 1; next < journals.Count; next++)
        {
            using var file = PalFile.Open(journals[next].Path, PalOpenFlags.ReadOnly | PalOpenFlags.Sequential);
            _scanWindow.Reset(file);
            for (long offset = 0; ; )
            {
                var entry = _scanWindow.Validate(offset, out _);
                if (!entry.IsValid)
                    break;
                if (entry.Header.EnvironmentId == _header.EnvironmentId)
                    return entry.Header.TransactionId == _expected;
                offset += entry.EntrySize;
            }
        }
        return false;
    }

    /// <summary>
    /// A journal read from its start to its log's end whose valid entries all belong to other
    /// environments, none of them written by this one (a root writes its branches' entries into its own
    /// journals), is not a journal of this environment: one copied or linked into the wrong folder.
    /// </summary>
    private void ThrowIfAnotherEnvironmentsJournal(string path, in EntryOwners owners)
    {
        if (owners.Own || owners.WrittenByUs || owners.Writers is not { } writers)
            return;
        string who = writers.Count == 1 ? $"environment {writers[0]}" : $"environments {string.Join(", ", writers)}";
        throw new JournalCorruptionException(path, 0, owners.FirstOthersTransaction,
            $"none of its entries belongs to environment {_header.EnvironmentId} or was written by it; they were written by {who} " +
            "(a journal of another environment copied or linked into this folder?)");
    }

    /// <summary>
    /// Looks at every 4 KiB boundary after <paramref name="offset"/> (in this journal, and unless
    /// <paramref name="sameFileOnly"/> in every later one) for a valid entry of this environment at or
    /// after the expected transaction: if there is one, what ended the log is damage, not its end. An
    /// entry in this journal whose write began at or before <paramref name="offset"/> does not count: it
    /// came with the entry that broke the log, in one write (a root's, shared with its branches) that was
    /// torn and never acknowledged, and goes with the rest of the tail.
    /// </summary>
    private void ThrowIfValidEntryFollows(List<(long Sequence, string Path)> journals, int index, long offset,
        in JournalEntryValidation end, bool sameFileOnly)
    {
        int last = sameFileOnly ? index : journals.Count - 1;
        for (int j = index; j <= last; j++)
        {
            string path = journals[j].Path;
            using var file = PalFile.Open(path, PalOpenFlags.ReadOnly | PalOpenFlags.Sequential);
            _tailWindow.Reset(file);
            long position = j == index ? offset + JournalEntryHeader.Alignment : 0;
            if (j == index && end.IsValid)
                position = offset + end.EntrySize; // a stale entry: nothing inside it can be an entry start
            for (; position + JournalEntryHeader.Size <= _tailWindow.FileSize; position += JournalEntryHeader.Alignment)
            {
                var found = _tailWindow.Validate(position, out _);
                if (!found.IsValid || found.Header.TransactionId < _expected || found.Header.EnvironmentId != _header.EnvironmentId)
                    continue;
                if (j == index && position - found.Header.OffsetInWrite <= offset)
                    continue;
                string where = end.IsValid ? $"a stale entry of transaction {end.Header.TransactionId}" : end.Reason;
                throw new JournalCorruptionException(journals[index].Path, offset, end.HeaderIsTrusted ? end.Header.TransactionId : -1,
                    $"the log breaks here ({where}), yet a valid entry of transaction {found.Header.TransactionId} follows in '{path}' at offset {position}: " +
                    "the journal is damaged in the middle, not torn at its end");
            }
        }
    }

    /// <summary>What a scan of one journal met besides entries of this environment.</summary>
    private struct EntryOwners(Guid environmentId)
    {
        /// <summary>An entry of this environment.</summary>
        public bool Own;

        /// <summary>An entry of another environment that this one's writer put in the file (it is their root).</summary>
        public bool WrittenByUs;

        /// <summary>The first entry of another environment's transaction id.</summary>
        public long FirstOthersTransaction;

        /// <summary>The environments whose writers put entries of others in the file; null when there were none.</summary>
        public List<Guid>? Writers;

        /// <summary>Notes a valid entry; true when it is this environment's.</summary>
        public bool IsOwn(in JournalEntryHeader header)
        {
            if (header.EnvironmentId == environmentId)
            {
                Own = true;
                return true;
            }
            var writer = header.WrittenBy == Guid.Empty ? header.EnvironmentId : header.WrittenBy;
            WrittenByUs |= writer == environmentId;
            if (Writers is null)
            {
                Writers = [];
                FirstOthersTransaction = header.TransactionId;
            }
            if (!Writers.Contains(writer))
                Writers.Add(writer);
            return false;
        }
    }

    /// <summary>A torn tail found by the reader, cut off (and logged) once the replay succeeded.</summary>
    private sealed record PendingTailCut(string Path, long Offset, string Reason, long DiscardedBytes, long LastTransaction)
    {
        public void Cut(ILogger logger)
        {
            Log.TornJournalTail(logger, Path, Offset, Reason, DiscardedBytes, LastTransaction);
            using var file = PalFile.Open(Path, PalOpenFlags.ReadWrite);
            file.SetSize(Offset);
            file.Sync();
        }
    }
}
