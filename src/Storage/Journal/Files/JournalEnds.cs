using Cairn.Pal;

namespace Cairn.Journal.Files;

/// <summary>
/// Where an environment's log stands at the end of each journal it has kept: the sync points a checkpoint that goes
/// journal by journal stops at (docs/design.md, "Flush and sync"). Read from the files, where the last entry of the
/// environment in each holds its transaction's root record; only when a checkpoint must go in steps, so the commit
/// path keeps nothing for it.
/// </summary>
internal static unsafe class JournalEnds
{
    /// <summary>
    /// The sync point of the last entry of <paramref name="environmentId"/> in each journal of <paramref name="journals"/>
    /// (in log order) whose last transaction is above <paramref name="after"/> and below <paramref name="before"/>. A
    /// journal whose entry cannot be found as it was written (a file that changed under the environment) ends the list:
    /// the checkpoint then takes its remaining journals in one step.
    /// </summary>
    public static List<SyncPoint> Between(IReadOnlyList<RetainedJournal> journals, Guid environmentId, long after, long before)
    {
        var ends = new List<SyncPoint>();
        using var window = new JournalReadWindow(readAhead: true);
        foreach (var journal in journals.OrderBy(j => j.Sequence))
        {
            if (journal.LastTransactionId <= after || journal.LastTransactionId < 0)
                continue;
            if (journal.LastTransactionId >= before)
                break;
            var end = Find(window, journal, environmentId);
            if (end is null)
                break;
            ends.Add(end.Value);
        }
        return ends;
    }

    private static SyncPoint? Find(JournalReadWindow window, RetainedJournal journal, Guid environmentId)
    {
        PalFile file;
        try
        {
            file = PalFile.Open(journal.FilePath, PalOpenFlags.ReadOnly | PalOpenFlags.Sequential);
        }
        catch (PalIOException)
        {
            return null;
        }
        using (file)
        {
            window.Reset(file);
            for (long offset = 0; offset < window.FileSize;)
            {
                var entry = window.Validate(offset, out _);
                if (!entry.IsValid)
                    return null;
                offset += entry.EntrySize;
                var header = entry.Header;
                if (header.EnvironmentId == environmentId && header.TransactionId == journal.LastTransactionId)
                    return new SyncPoint(header.TransactionId, header.Root, new JournalPosition(journal.Sequence, offset));
            }
        }
        return null;
    }
}
