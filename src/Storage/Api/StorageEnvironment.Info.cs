using Cairn.FreeSpace;
using Cairn.Journal.Files;
using Cairn.Paging;

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
        var state = tx.Low.State;
        var trees = new List<TreeInfo>();
        foreach (var name in tx.GetTreeNames())
        {
            var tree = tx.OpenTree(name).Inner.State;
            trees.Add(new TreeInfo(name, tree.EntryCount, tree.Depth, tree.BranchPages, tree.LeafPages, tree.OverflowPages));
        }

        long markedFree = FreeSpaceMap.CountMarkedFree(tx.Low, state.FreeSpaceDirectoryPage, state.NextPageNumber);
        // The waiting list is read after the snapshot was pinned, so it may hold pages that later commits freed;
        // only those this snapshot already shows free are its waiting pages.
        long waiting = _states.WaitingPages().Count(page => FreeSpaceMap.IsMarkedFree(tx.Low, state.FreeSpaceDirectoryPage, page));

        var journals = JournalFilesOnDisk.List(_journal.DirectoryPath)
            .Select(f => new EnvironmentJournalFile(f.FileName, f.FilePath, f.Number, f.IsRecyclable, f.Bytes, f.LinkCount))
            .ToArray();
        int branches = BranchCount;
        var role = IsBranch ? SharedJournalRole.Branch : branches > 0 ? SharedJournalRole.Root : SharedJournalRole.None;

        return new EnvironmentInfo(
            DirectoryPath, DataFilePath, EnvironmentId, FileHeader.CurrentFormatVersion, StorageConstants.PageSize,
            DataFileBytes: new FileInfo(DataFilePath).Length,
            LastCommittedTransactionId: state.TransactionId,
            LastFlushedTransactionId: _flusher.FlushedUpTo,
            LastSyncedTransactionId: _flusher.SyncedUpTo,
            TransactionsReplayedAtOpen: _transactionsReplayedAtOpen,
            HighWaterMark: state.NextPageNumber,
            PagesInUse: state.NextPageNumber - markedFree,
            FreePages: markedFree - waiting,
            PagesWaitingForReaders: waiting,
            Trees: trees.AsReadOnly(),
            Journals: Array.AsReadOnly(journals),
            role, branches, SharesRootJournal);
    }
}
