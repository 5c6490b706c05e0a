using Cairn.FreeSpace;
using Cairn.Paging;
using Cairn.Trees;
using Cairn.Verification;

namespace Cairn;

public sealed unsafe partial class StorageEnvironment
{
    /// <summary>
    /// Checks the whole environment as of the last commit: every tree's key order, separator bounds,
    /// depth, counts and page checksums, and that every page below the high-water mark is exactly
    /// one of in use, free, or freed but waiting for readers. Holds the write lock while it runs.
    /// Throws <see cref="VerificationException"/> listing every problem.
    /// </summary>
    public VerificationReport Verify()
    {
        ThrowIfDisposed();
        if (!_writeLock.Wait(_options.WriteTransactionTimeout))
            throw new WriteTransactionTimeoutException(_options.WriteTransactionTimeout);
        try
        {
            ReclaimUnreachable();
            using var tx = BeginRead();
            return VerifySnapshot(tx);
        }
        finally
        {
            _writeLock.Release();
        }
    }

    private VerificationReport VerifySnapshot(ReadTransaction tx)
    {
        var state = tx.Low.State;
        var owners = new PageOwnership(state.NextPageNumber);
        owners.Claim(0, (int)DataFile.HeaderPages, "the file header");
        ClaimFreeSpacePages(tx.Low, state.FreeSpaceDirectoryPage, owners);

        var root = tx.RootTree;
        VerifyTree(root, "the root tree", owners);
        int trees = 0;
        long entries = 0;
        foreach (var name in tx.GetTreeNames())
        {
            var tree = tx.OpenTree(name);
            VerifyTree(tree.Inner, $"tree '{name}'", owners);
            trees++;
            entries += tree.Count;
        }

        // The flusher reclaims too (moving freed pages from "waiting for readers" to "waiting for the
        // writer"): take the list under the state lock. Only the writer, which this holds, makes them available.
        var waiting = new HashSet<long>();
        lock (_stateLock)
        {
            foreach (var (page, count) in _reclaimer.WaitingPages)
                for (long p = page; p < page + count; p++)
                    waiting.Add(p);
        }

        long free = 0;
        for (long page = 0; page < state.NextPageNumber; page++)
        {
            bool marked = FreeSpaceMap.IsMarkedFree(tx.Low, state.FreeSpaceDirectoryPage, page);
            bool used = owners.IsClaimed(page);
            bool isWaiting = waiting.Contains(page);
            bool available = _freeSpace.IsAvailable(page);
            if (used && marked)
                owners.Problems.Add($"page {page} is in use and also marked free");
            else if (!used && !marked)
                owners.Problems.Add($"page {page} is neither in use nor free (leaked)");
            else if (marked && isWaiting == available)
                owners.Problems.Add($"free page {page} is {(available ? "both available and waiting for readers" : "neither available nor waiting for readers")}");
            if (marked)
                free++;
        }
        foreach (var page in waiting)
            if (page >= state.NextPageNumber)
                owners.Problems.Add($"page {page} waits for readers but is beyond the high-water mark {state.NextPageNumber}");

        CheckPageTable(tx.Low, state, owners.Problems);

        if (owners.Problems.Count > 0)
            throw new VerificationException(_dataFile.FilePath, owners.Problems);
        return new VerificationReport(state.TransactionId, state.NextPageNumber, owners.Claimed, free - waiting.Count, waiting.Count, trees, entries);
    }

    /// <summary>
    /// The page table holds one version per live run: runs must not overlap (the flusher would write
    /// overlapping ranges) and none may cover a page the free-space map marks free (a live version of a
    /// free page is one the allocator will hand out again in another shape).
    /// </summary>
    private static void CheckPageTable(Transactions.LowLevelTransaction tx, Transactions.EnvironmentState state, List<string> problems)
    {
        long previousStart = -1, previousEnd = 0, previousTransaction = 0;
        foreach (var (pageNumber, version) in state.Pages)
        {
            long end = pageNumber + version.PageCount;
            if (pageNumber < previousEnd)
                problems.Add($"page-table runs overlap: the run at page {pageNumber} ({version.PageCount} pages, transaction {version.TransactionId}) " +
                    $"starts inside the run at page {previousStart} ({previousEnd - previousStart} pages, transaction {previousTransaction})");
            if (end > state.NextPageNumber)
                problems.Add($"the page-table run at page {pageNumber} ({version.PageCount} pages) ends past the high-water mark {state.NextPageNumber}");
            for (long page = pageNumber; page < Math.Min(end, state.NextPageNumber); page++)
            {
                if (FreeSpaceMap.IsMarkedFree(tx, state.FreeSpaceDirectoryPage, page))
                {
                    problems.Add($"the page-table run at page {pageNumber} ({version.PageCount} pages, transaction {version.TransactionId}) covers page {page}, which is marked free");
                    break;
                }
            }
            if (end > previousEnd)
                (previousStart, previousEnd, previousTransaction) = (pageNumber, end, version.TransactionId);
        }
    }

    private static void VerifyTree(BTree tree, string owner, PageOwnership owners)
    {
        try
        {
            tree.Verify(new OwnershipSink(owners, owner));
        }
        catch (Exception e) when (e is TreeCorruptionException or PageCorruptionException)
        {
            owners.Problems.Add($"{owner}: {e.Message}");
        }
    }

    private static void ClaimFreeSpacePages(Transactions.LowLevelTransaction tx, long directoryPage, PageOwnership owners)
    {
        owners.Claim(directoryPage, 1, "the free-space directory");
        byte* directory = tx.GetPage(directoryPage);
        for (int s = 0; s < FreeSpaceMap.SectionCount(directory); s++)
        {
            long section = FreeSpaceMap.SectionPage(directory, s);
            tx.GetPage(section); // validates the checksum
            owners.Claim(section, 1, $"free-space section {s}");
        }
    }

    private sealed class OwnershipSink(PageOwnership owners, string owner) : ITreeVerificationSink
    {
        public void OnPages(long firstPage, int count, TreePageKind kind) => owners.Claim(firstPage, count, $"{owner} ({kind})");
    }
}
