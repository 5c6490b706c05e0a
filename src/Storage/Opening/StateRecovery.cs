using Cairn.Diagnostics;
using Cairn.FreeSpace;
using Cairn.Paging;
using Cairn.Recovery;
using Cairn.Transactions;
using Microsoft.Extensions.Logging;

namespace Cairn.Opening;

/// <summary>
/// What every open does between the data file and a running environment, writable or read-only: the header
/// copies loaded and checked against the file, the journals replayed, and the first state with its free-space map.
/// </summary>
internal static unsafe class StateRecovery
{
    /// <summary>
    /// Loads the header copies (a writable open repairs an invalid or older copy; a read-only one only reads) and
    /// checks the winner against the file. <paramref name="admit"/> judges the winning copy before anything is written.
    /// </summary>
    public static HeaderStore LoadHeaders(DataFile dataFile, ILogger logger, bool readOnly, Action<FileHeader>? admit = null)
    {
        var headers = new HeaderStore(dataFile);
        headers.Load(repair: !readOnly, admit);
        var header = headers.Current;
        if (headers.RepairedCopy is { } repaired && !readOnly)
            Log.HeaderCopyRepaired(logger, dataFile.FilePath, repaired.Offset, repaired.Problem, header.LastTransactionId, header.JournalSequence);
        CheckHeaderAgainstFile(header, dataFile);
        return headers;
    }

    /// <summary>
    /// Replays the journals in <paramref name="journals"/> over the data file and builds the first state: the header's
    /// root, or the last replayed entry's, with the rebuilt runs as its page table, less the runs later replayed
    /// transactions freed (the recovered free-space map says which). Frees what it rebuilt when it throws.
    /// </summary>
    public static (EnvironmentState State, FreeSpaceMap FreeSpace, RecoveryResult Recovery) Recover(string journals, FileHeader header,
        DataFile dataFile, ScratchAllocator scratch, long budgetBytes, ILogger logger, bool keepSynced, bool readOnly)
    {
        RecoveryResult? recovery = null;
        PageTable? pages = null;
        try
        {
            recovery = JournalRecovery.Run(journals, header, dataFile, scratch, budgetBytes, logger, keepSynced, readOnly);
            var builder = PageTable.Empty.ToBuilder();
            foreach (var (pageNumber, version) in recovery.Pages)
                builder.Set(pageNumber, version);
            pages = builder.ToImmutable();

            var state = new EnvironmentState(recovery.LastTransactionId, epoch: 1, pages, recovery.LastEntry?.Root ?? header.Root,
                dataFile.Map(), recovery.Position);
            var freeSpace = FreeSpaceMap.Load(LowLevelTransaction.ForReading(dataFile, scratch, state),
                state.FreeSpaceDirectoryPage, state.NextPageNumber);
            // Replay rebuilt runs that later replayed transactions freed; the recovered map says which.
            pages = FreedRecoveredRuns.Drop(pages, freeSpace, scratch, dataFile.FilePath, out _);
            return (state.WithPages(state.Epoch, pages, state.View), freeSpace, recovery);
        }
        catch
        {
            if (pages is not null)
                FreePages(pages, scratch);
            else if (recovery is not null)
            {
                foreach (var (_, version) in recovery.Pages)
                    scratch.Free((byte*)version.Pointer, version.PageCount);
            }
            throw;
        }
    }

    /// <summary>Gives back the scratch memory of every page version in <paramref name="pages"/> (an open that failed after recovery).</summary>
    public static void FreePages(PageTable pages, ScratchAllocator scratch)
    {
        foreach (var (_, version) in pages)
            scratch.Free((byte*)version.Pointer, version.PageCount);
    }

    private static void CheckHeaderAgainstFile(FileHeader header, DataFile dataFile)
    {
        var root = header.Root;
        if (root.NextPageNumber < DataFile.HeaderPages || root.NextPageNumber > dataFile.PageCount)
            throw new StorageFormatException(dataFile.FilePath, 0,
                $"the header counts {root.NextPageNumber} pages in use but the file holds {dataFile.PageCount} (truncated file?)");
        if (root.RootTree.RootPage < DataFile.HeaderPages || root.RootTree.RootPage >= root.NextPageNumber ||
            root.FreeSpaceDirectoryPage < DataFile.HeaderPages || root.FreeSpaceDirectoryPage >= root.NextPageNumber)
            throw new StorageFormatException(dataFile.FilePath, 0, "the header points at pages outside the file");
    }
}
