using Cairn.FreeSpace;

namespace Cairn.Tests.FreeSpace;

/// <summary>
/// A freshly formatted <see cref="FreeSpaceMap"/> (directory on page 2, first section on page 3,
/// nothing free, high-water mark 4) driven the way the engine drives it: a write transaction
/// allocates and frees, then commits or rolls back, and the reclaimer releases committed frees later.
/// A rollback also puts the high-water mark back, as the engine's next transaction starts from the
/// committed state.
/// </summary>
internal sealed unsafe class FreeSpaceHarness : IDisposable
{
    public const long DirectoryPage = 2;
    public const long FirstSectionPage = 3;
    public const long FirstDataPage = 4;

    private long _nextPageNumber = FirstDataPage;
    private long _committedNextPageNumber = FirstDataPage;

    public FreeSpaceHarness()
    {
        FreeSpaceMap.Format(Pages.CreatePages(DirectoryPage, 1), DirectoryPage, Pages.CreatePages(FirstSectionPage, 1), FirstSectionPage);
        Pages.Commit();
        Map = FreeSpaceMap.CreateEmpty(DirectoryPage);
    }

    public MemoryFreeSpacePages Pages { get; } = new();

    public FreeSpaceMap Map { get; private set; }

    public long NextPageNumber => _nextPageNumber;

    public long Allocate(int count = 1) => Map.Allocate(Pages, count, ref _nextPageNumber);

    public void Free(long pageNumber, int count = 1) => Map.Free(Pages, pageNumber, count);

    public void Commit()
    {
        Map.Commit();
        Pages.Commit();
        _committedNextPageNumber = _nextPageNumber;
    }

    public void Rollback()
    {
        Map.Rollback();
        Pages.Discard();
        _nextPageNumber = _committedNextPageNumber;
    }

    /// <summary>The persistent bit, as the open transaction sees it.</summary>
    public bool IsMarkedFree(long pageNumber) => FreeSpaceMap.IsMarkedFree(Pages, DirectoryPage, pageNumber);

    /// <summary>The map an open of this state would build.</summary>
    public FreeSpaceMap Load() => FreeSpaceMap.Load(Pages, DirectoryPage, _nextPageNumber);

    /// <summary>Goes on with the map an open would build, as after a restart (call between transactions).</summary>
    public void Reopen() => Map = Load();

    /// <summary>The bitmap section pages the directory lists, in order.</summary>
    public long[] Sections()
    {
        byte* directory = Pages.GetPage(DirectoryPage);
        return Enumerable.Range(0, FreeSpaceMap.SectionCount(directory)).Select(s => FreeSpaceMap.SectionPage(directory, s)).ToArray();
    }

    /// <summary>Single pages taken from the high-water mark in one committed transaction.</summary>
    public long[] AllocateCommitted(int count)
    {
        var pages = Enumerable.Range(0, count).Select(_ => Allocate()).ToArray();
        Commit();
        return pages;
    }

    /// <summary>Frees the pages in one committed transaction, then releases them as the reclaimer would once no reader sees them.</summary>
    public void MakeAvailable(params long[] pages)
    {
        foreach (long page in pages)
            Free(page);
        Commit();
        foreach (long page in pages)
            Map.Release(page, 1);
    }

    public void Dispose() => Pages.Dispose();
}
