using Cairn.FreeSpace;
using Cairn.Paging;
using Cairn.Transactions;
using Cairn.Trees;

namespace Cairn.Verification;

/// <summary>
/// Checks a whole snapshot: every tree's key order, separator bounds, depth, counts and page checksums,
/// that every page below the high-water mark is exactly one of in use, free, or freed but waiting for
/// readers, and that the page table's runs neither overlap nor cover free pages. The caller holds the
/// write lock, so the free-space mirror and the waiting pages stand still.
/// </summary>
internal static unsafe class EnvironmentVerifier
{
    /// <param name="tx">A read transaction on the snapshot to check.</param>
    /// <param name="freeSpace">The writer's free-space map (which pages it could hand out now).</param>
    /// <param name="waiting">Freed pages not yet allocatable (StatePublisher.WaitingPages).</param>
    /// <param name="dataFilePath">The data file, named in the problems and the exception.</param>
    /// <exception cref="VerificationException">Any problem; the message lists every one.</exception>
    public static VerificationSummary Verify(LowLevelTransaction tx, FreeSpaceMap freeSpace, HashSet<long> waiting, string dataFilePath)
    {
        var state = tx.State;
        var owners = new PageOwnership(state.NextPageNumber);
        owners.Claim(0, (int)DataFile.HeaderPages, "the file header");
        ClaimFreeSpacePages(tx, state.FreeSpaceDirectoryPage, owners);

        var root = new BTree(tx, state.RootTree);
        VerifyTree(root, "the root tree", owners);
        int trees = 0;
        long entries = 0;
        foreach (var name in TreeNames(root))
        {
            if (!TreeDirectory.TryRead(root, name, out var treeState, dataFilePath))
                continue;
            VerifyTree(new BTree(tx, treeState), $"tree '{name}'", owners);
            trees++;
            entries += treeState.EntryCount;
        }

        long free = 0;
        for (long page = 0; page < state.NextPageNumber; page++)
        {
            bool marked = FreeSpaceMap.IsMarkedFree(tx, state.FreeSpaceDirectoryPage, page);
            bool used = owners.IsClaimed(page);
            bool isWaiting = waiting.Contains(page);
            bool available = freeSpace.IsAvailable(page);
            if (used && marked)
                owners.Problems.Add($"page {page} is in use and also marked free");
            else if (!used && !marked)
                owners.Problems.Add($"page {page} is neither in use nor free (leaked)");
            else if (marked && isWaiting == available)
                owners.Problems.Add($"free page {page} is {(available ? "both available and waiting for readers" : "neither available nor waiting for readers")}");
            if (marked)
                free++;
        }
        CheckPastHighWaterMark(tx, state, owners.Problems);
        foreach (var page in waiting)
            if (page >= state.NextPageNumber)
                owners.Problems.Add($"page {page} waits for readers but is beyond the high-water mark {state.NextPageNumber}");

        CheckPageTable(tx, state, owners.Problems);

        if (owners.Problems.Count > 0)
            throw new VerificationException(dataFilePath, owners.Problems);
        return new VerificationSummary(state.TransactionId, state.NextPageNumber, owners.Claimed, free - waiting.Count, waiting.Count, trees, entries);
    }

    /// <summary>
    /// No page at or past the high-water mark may be marked free: the allocator takes pages from there without
    /// looking at their bits, so such a bit marks a page in use as free once the mark passes it, and the next open
    /// hands it out a second time (issue 30: a new section page that kept old bytes).
    /// </summary>
    private static void CheckPastHighWaterMark(LowLevelTransaction tx, EnvironmentState state, List<string> problems)
    {
        long covered = FreeSpaceMap.CoveredPages(tx, state.FreeSpaceDirectoryPage);
        if (covered <= state.NextPageNumber)
            return;
        long past = FreeSpaceMap.CountMarkedFree(tx, state.FreeSpaceDirectoryPage, covered)
            - FreeSpaceMap.CountMarkedFree(tx, state.FreeSpaceDirectoryPage, state.NextPageNumber);
        if (past > 0)
            problems.Add($"{past} page(s) at or past the high-water mark {state.NextPageNumber} are marked free (pages taken from there would count as free)");
    }

    private static List<string> TreeNames(BTree root)
    {
        var names = new List<string>();
        var cursor = new BTreeCursor(root);
        for (bool more = cursor.First(); more; more = cursor.MoveNext())
            names.Add(TreeDirectory.DecodeName(cursor.Key));
        return names;
    }

    /// <summary>
    /// The page table holds one version per live run: runs must not overlap (the flusher would write
    /// overlapping ranges) and none may cover a page the free-space map marks free (a live version of a
    /// free page is one the allocator will hand out again in another shape).
    /// </summary>
    private static void CheckPageTable(LowLevelTransaction tx, EnvironmentState state, List<string> problems)
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

    private static void ClaimFreeSpacePages(LowLevelTransaction tx, long directoryPage, PageOwnership owners)
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

/// <summary>What a verification that found no problem counted (the public VerificationReport carries it).</summary>
internal readonly record struct VerificationSummary(long TransactionId, long HighWaterMark, long PagesInUse, long FreePages,
    long PagesWaitingForReaders, int Trees, long Entries)
{
    public VerificationReport ToReport() => new()
    {
        TransactionId = TransactionId, TotalPages = HighWaterMark, PagesInUse = PagesInUse, FreePages = FreePages,
        PagesWaitingForReaders = PagesWaitingForReaders, Trees = Trees, Entries = Entries,
    };
}
