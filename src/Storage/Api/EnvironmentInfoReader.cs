using Cairn.FreeSpace;
using Cairn.Journal.Files;
using Cairn.Paging;

namespace Cairn;

/// <summary>Where an environment stands apart from its snapshot, for <see cref="EnvironmentInfoReader.Read"/>.</summary>
internal sealed record EnvironmentStanding(
    string DirectoryPath,
    string DataFilePath,
    string JournalDirectoryPath,
    Guid EnvironmentId,
    long LastFlushedTransactionId,
    long LastSyncedTransactionId,
    long TransactionsReplayedAtOpen,
    SharedJournalRole Role = SharedJournalRole.None,
    int OpenBranches = 0,
    bool SharesRootJournal = false);

/// <summary>
/// Builds an <see cref="EnvironmentInfo"/> from one read transaction (trees, page accounting) and the journal folder
/// as it stands: the same description for a writable and a read-only environment.
/// </summary>
internal static class EnvironmentInfoReader
{
    /// <param name="tx">The snapshot described.</param>
    /// <param name="waitingPages">Freed pages not yet allocatable (possibly some that later commits freed: only those the snapshot shows free count).</param>
    /// <param name="standing">Everything else the description holds.</param>
    public static EnvironmentInfo Read(ReadTransaction tx, IEnumerable<long> waitingPages, EnvironmentStanding standing)
    {
        var state = tx.Low.State;
        var trees = new List<TreeInfo>();
        foreach (var name in tx.GetTreeNames())
        {
            var tree = tx.OpenTree(name).Inner.State;
            trees.Add(new TreeInfo
            {
                Name = name, Entries = tree.EntryCount, Depth = tree.Depth,
                BranchPages = tree.BranchPages, LeafPages = tree.LeafPages, OverflowPages = tree.OverflowPages,
            });
        }

        long markedFree = FreeSpaceMap.CountMarkedFree(tx.Low, state.FreeSpaceDirectoryPage, state.NextPageNumber);
        long waiting = waitingPages.Count(page => FreeSpaceMap.IsMarkedFree(tx.Low, state.FreeSpaceDirectoryPage, page));
        var journals = JournalFilesOnDisk.List(standing.JournalDirectoryPath)
            .Select(f => new EnvironmentJournalFile
            {
                FileName = f.FileName, FilePath = f.FilePath, Number = f.Number,
                IsRecyclable = f.IsRecyclable, Bytes = f.Bytes, LinkCount = f.LinkCount,
            })
            .ToArray();

        return new EnvironmentInfo
        {
            DirectoryPath = standing.DirectoryPath,
            DataFilePath = standing.DataFilePath,
            EnvironmentId = standing.EnvironmentId,
            FormatVersion = FileHeader.CurrentFormatVersion,
            PageSize = StorageConstants.PageSize,
            DataFileBytes = new FileInfo(standing.DataFilePath).Length,
            LastCommittedTransactionId = state.TransactionId,
            LastFlushedTransactionId = standing.LastFlushedTransactionId,
            LastSyncedTransactionId = standing.LastSyncedTransactionId,
            TransactionsReplayedAtOpen = standing.TransactionsReplayedAtOpen,
            HighWaterMark = state.NextPageNumber,
            PagesInUse = state.NextPageNumber - markedFree,
            FreePages = markedFree - waiting,
            PagesWaitingForReaders = waiting,
            Trees = trees.AsReadOnly(),
            Journals = Array.AsReadOnly(journals),
            SharedJournalRole = standing.Role,
            OpenBranches = standing.OpenBranches,
            SharesRootJournal = standing.SharesRootJournal,
        };
    }
}
