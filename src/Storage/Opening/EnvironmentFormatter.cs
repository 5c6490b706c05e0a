using Cairn.FreeSpace;
using Cairn.Pal;
using Cairn.Paging;
using Cairn.Transactions;
using Cairn.Trees;

namespace Cairn.Opening;

/// <summary>
/// Lays out a new data file through the normal page paths: the free-space directory (page 2), its
/// first bitmap section (page 3) and an empty root tree, all checksummed, written and synced before
/// either header copy names them.
/// </summary>
internal static unsafe class EnvironmentFormatter
{
    public const long DirectoryPage = 2;
    public const long FirstSectionPage = 3;
    private const long InitialPages = 32;

    public static void Format(DataFile dataFile, HeaderStore headers, ScratchAllocator scratch)
    {
        dataFile.EnsureCapacity(InitialPages);
        using var view = dataFile.Map();
        var empty = new EnvironmentState(0, 0, PageTable.Empty, new RootRecord(DataFile.HeaderPages, DirectoryPage, default), view, Journal.JournalPosition.None);
        var dirty = new DirtyPageMap();
        var freeSpace = FreeSpaceMap.CreateEmpty(DirectoryPage);
        var tx = LowLevelTransaction.ForWriting(dataFile, scratch, empty, freeSpace, dirty, []);
        try
        {
            FreeSpaceMap.Format(tx.CreatePages(DirectoryPage, 1), DirectoryPage, tx.CreatePages(FirstSectionPage, 1), FirstSectionPage);
            var bootstrap = new BootstrapPages(tx, FirstSectionPage + 1);
            var rootTree = BTree.CreateEmpty(bootstrap);
            long next = bootstrap.Next;
            tx.StampDirtyPages();

            var ops = dirty.OrderBy(d => d.Key)
                .Select(d => new PalWriteOp((void*)d.Value.Pointer, d.Key * StorageConstants.PageSize, (long)d.Value.PageCount * StorageConstants.PageSize))
                .ToArray();
            dataFile.WritePages(ops);
            dataFile.Sync();
            headers.Initialize(new FileHeader
            {
                Magic = FileHeader.MagicValue,
                FormatVersion = FileHeader.CurrentFormatVersion,
                PageSize = StorageConstants.PageSize,
                EnvironmentId = Guid.NewGuid(),
                LastTransactionId = 0,
                Root = new RootRecord(next, DirectoryPage, rootTree),
            });
        }
        finally
        {
            tx.DiscardDirtyPages();
        }
    }

    /// <summary>Hands out pages by bumping the high-water mark: a new file has no free space to search yet.</summary>
    private sealed class BootstrapPages(LowLevelTransaction tx, long firstFreePage) : IPageAccess
    {
        private readonly LowLevelTransaction _tx = tx;
        private long _next = firstFreePage;

        public bool IsWritable => true;

        public long Next => _next;

        public byte* GetPage(long pageNumber) => _tx.GetPage(pageNumber);

        public WritablePage ModifyPage(long pageNumber) => _tx.ModifyPage(pageNumber);

        public WritablePage AllocatePages(int count, out long pageNumber)
        {
            pageNumber = _next;
            _next += count;
            return _tx.CreateRun(pageNumber, count);
        }

        public void FreePages(long pageNumber, int count)
            => throw new InvalidOperationException("Formatting never frees pages.");
    }
}
