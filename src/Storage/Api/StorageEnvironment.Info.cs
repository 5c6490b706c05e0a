namespace Cairn;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Describes the environment as of the last commit: the data file, transaction ids, every tree with its
    /// entries and depth, how the pages below the high-water mark are used, the journal files on disk with
    /// their sizes and link counts, and its place in a journal group. Cheap next to <see cref="Verify"/>: it
    /// reads tree metadata and the free-space bitmap, not the trees, and takes neither the write lock nor
    /// any lock a commit waits for (it may wait for a flush in progress to finish).
    /// </summary>
    public EnvironmentInfo GetInfo()
    {
        ThrowIfDisposed();
        using var tx = BeginRead();
        int branches = _groupSeat.BranchCount;
        var role = _groupSeat.IsBranch ? SharedJournalRole.Branch : branches > 0 ? SharedJournalRole.Root : SharedJournalRole.None;
        // The waiting list is read after the snapshot was pinned, so it may hold pages that later commits freed.
        return EnvironmentInfoReader.Read(tx, _states.WaitingPages(), new EnvironmentStanding(DirectoryPath, DataFilePath, _journal.DirectoryPath,
            EnvironmentId, _flusher.FlushedUpTo, _flusher.SyncedUpTo, _transactionsReplayedAtOpen, role, branches, SharesRootJournal));
    }
}
