using System.Numerics;
using Cairn.Paging;

namespace Cairn.FreeSpace;

/// <summary>
/// Which pages below the high-water mark are free. Persistent as bitmap sections (one page covers
/// 65,280 pages, 510 MiB of data) listed by a directory page; a commit touches only the sections
/// whose bits changed, never the whole map. In memory a mirror holds the pages that can be handed
/// out now: a freed page is free on disk at once (so a crash never leaks it), but enters the mirror
/// only when no reader can still see it (ResourceReclaimer calls <see cref="Release"/>).
/// </summary>
internal sealed unsafe class FreeSpaceMap
{
    public const int BitsPerSection = (StorageConstants.PageSize - PageHeader.Size) * 8;
    private const int SectionCountOffset = PageHeader.Size;
    private const int SectionListOffset = PageHeader.Size + 8;
    public const int MaxSections = (StorageConstants.PageSize - SectionListOffset) / sizeof(long);

    private ulong[] _available = new ulong[64];
    private long _searchHint;
    private readonly List<(long PageNumber, int Count)> _allocatedInTransaction = [];

    private FreeSpaceMap(long directoryPage) => DirectoryPage = directoryPage;

    public long DirectoryPage { get; }

    /// <summary>Pages that could be handed out right now.</summary>
    public long AvailablePages { get; private set; }

    /// <summary>Writes the pages of an empty map: a directory listing one section, nothing free.</summary>
    public static void Format(byte* directory, long directoryPage, byte* section, long sectionPage)
    {
        InitializePage(directory, directoryPage, PageFlags.FreeSpaceDirectory);
        InitializePage(section, sectionPage, PageFlags.FreeSpaceBitmap);
        *(int*)(directory + SectionCountOffset) = 1;
        ((long*)(directory + SectionListOffset))[0] = sectionPage;
    }

    /// <summary>
    /// Writes the directory of a map whose <paramref name="sectionCount"/> sections lie on consecutive pages from
    /// <paramref name="firstSectionPage"/> (each made by <see cref="InitializeSection"/>): a compacted file, where every
    /// page below the high-water mark is in use, so no bit is set.
    /// </summary>
    public static void FormatDenseDirectory(byte* directory, long directoryPage, long firstSectionPage, int sectionCount)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(sectionCount, MaxSections);
        InitializePage(directory, directoryPage, PageFlags.FreeSpaceDirectory);
        *(int*)(directory + SectionCountOffset) = sectionCount;
        for (int s = 0; s < sectionCount; s++)
            ((long*)(directory + SectionListOffset))[s] = firstSectionPage + s;
    }

    /// <summary>Makes a zeroed page a bitmap section with nothing free.</summary>
    public static void InitializeSection(byte* section, long sectionPage) => InitializePage(section, sectionPage, PageFlags.FreeSpaceBitmap);

    /// <summary>The map of a file being formatted: nothing is free yet.</summary>
    public static FreeSpaceMap CreateEmpty(long directoryPage) => new(directoryPage);

    /// <summary>Builds the in-memory mirror from the sections as a snapshot sees them.</summary>
    public static FreeSpaceMap Load(IFreeSpacePages pages, long directoryPage, long nextPageNumber)
    {
        var map = new FreeSpaceMap(directoryPage);
        byte* directory = pages.GetPage(directoryPage);
        int sections = SectionCount(directory);
        for (int s = 0; s < sections; s++)
        {
            ulong* bits = (ulong*)(pages.GetPage(SectionPage(directory, s)) + PageHeader.Size);
            long first = (long)s * BitsPerSection;
            for (int w = 0; w < BitsPerSection / 64; w++)
            {
                ulong word = bits[w];
                while (word != 0)
                {
                    int bit = BitOperations.TrailingZeroCount(word);
                    word &= word - 1;
                    long page = first + w * 64 + bit;
                    if (page < nextPageNumber)
                        map.Release(page, 1);
                }
            }
        }
        return map;
    }

    public static int SectionCount(byte* directory) => *(int*)(directory + SectionCountOffset);

    public static long SectionPage(byte* directory, int index) => ((long*)(directory + SectionListOffset))[index];

    /// <summary>Whether the persistent map marks the page free (as the given snapshot sees it).</summary>
    public static bool IsMarkedFree(IFreeSpacePages pages, long directoryPage, long pageNumber)
    {
        byte* directory = pages.GetPage(directoryPage);
        long section = pageNumber / BitsPerSection;
        if (section >= SectionCount(directory))
            return false;
        ulong* bits = (ulong*)(pages.GetPage(SectionPage(directory, (int)section)) + PageHeader.Size);
        long bit = pageNumber % BitsPerSection;
        return (bits[bit >> 6] & (1UL << (int)(bit & 63))) != 0;
    }

    /// <summary>How many pages below <paramref name="nextPageNumber"/> the persistent map marks free (as the given snapshot sees it).</summary>
    public static long CountMarkedFree(IFreeSpacePages pages, long directoryPage, long nextPageNumber)
    {
        byte* directory = pages.GetPage(directoryPage);
        long free = 0;
        for (int s = 0; s < SectionCount(directory) && (long)s * BitsPerSection < nextPageNumber; s++)
        {
            ulong* bits = (ulong*)(pages.GetPage(SectionPage(directory, s)) + PageHeader.Size);
            long covered = Math.Min(BitsPerSection, nextPageNumber - (long)s * BitsPerSection);
            int wholeWords = (int)(covered / 64);
            for (int w = 0; w < wholeWords; w++)
                free += BitOperations.PopCount(bits[w]);
            // Bits past the high-water mark are never set, but the count must not depend on that.
            int rest = (int)(covered % 64);
            if (rest != 0)
                free += BitOperations.PopCount(bits[wholeWords] & ((1UL << rest) - 1));
        }
        return free;
    }

    /// <summary>The pages the map's sections cover (as the given snapshot sees them): bits from the high-water mark up to here must be clear.</summary>
    public static long CoveredPages(IFreeSpacePages pages, long directoryPage)
        => (long)SectionCount(pages.GetPage(directoryPage)) * BitsPerSection;

    public bool IsAvailable(long pageNumber)
        => (pageNumber >> 6) < _available.Length && (_available[pageNumber >> 6] & (1UL << (int)(pageNumber & 63))) != 0;

    /// <summary>
    /// Finds <paramref name="count"/> contiguous free pages, or takes them from the high-water mark
    /// (adding bitmap sections when the file outgrows the ones it has).
    /// </summary>
    public long Allocate(IFreeSpacePages pages, int count, ref long nextPageNumber)
    {
        if (AvailablePages >= count && TryTakeRun(count, out long page))
        {
            SetPersistentBits(pages, page, count, free: false);
            _allocatedInTransaction.Add((page, count));
            return page;
        }
        EnsureCoverage(pages, ref nextPageNumber, nextPageNumber + count);
        page = nextPageNumber;
        nextPageNumber += count;
        return page;
    }

    /// <summary>Marks pages free on disk; they become available once <see cref="Release"/> is called for them.</summary>
    public void Free(IFreeSpacePages pages, long pageNumber, int count) => SetPersistentBits(pages, pageNumber, count, free: true);

    /// <summary>Makes pages available for allocation (no reader can see them any more).</summary>
    public void Release(long pageNumber, int count)
    {
        EnsureMirror(pageNumber + count);
        for (long page = pageNumber; page < pageNumber + count; page++)
            _available[page >> 6] |= 1UL << (int)(page & 63);
        AvailablePages += count;
        _searchHint = Math.Min(_searchHint, pageNumber);
    }

    public void Commit() => _allocatedInTransaction.Clear();

    /// <summary>
    /// Commits this transaction's allocations into <paramref name="target"/>, which the committer keeps until
    /// its commit is durable: if the commit then fails, <see cref="Release"/>ing them undoes the allocations
    /// as <see cref="Rollback"/> would have (the next transaction's allocations are recorded apart).
    /// </summary>
    public void MoveAllocationsTo(List<(long PageNumber, int Count)> target)
    {
        target.AddRange(_allocatedInTransaction);
        _allocatedInTransaction.Clear();
    }

    /// <summary>An aborted transaction's allocations go back to the mirror; its persistent edits die with its pages.</summary>
    public void Rollback()
    {
        foreach (var (page, count) in _allocatedInTransaction)
            Release(page, count);
        _allocatedInTransaction.Clear();
    }

    private bool TryTakeRun(int count, out long page)
    {
        long words = _available.Length;
        for (long w = _searchHint >> 6; w < words; w++)
        {
            ulong word = _available[w];
            if (word == 0)
                continue;
            long candidate = w * 64 + BitOperations.TrailingZeroCount(word);
            if (count == 1 || RunIsAvailable(candidate, count))
            {
                Take(candidate, count);
                page = candidate;
                _searchHint = candidate;
                return true;
            }
            if (count > 1)
                return TryTakeRunSlow(candidate + 1, count, out page);
        }
        page = 0;
        return false;
    }

    private bool TryTakeRunSlow(long from, int count, out long page)
    {
        long limit = (long)_available.Length * 64 - count;
        for (long candidate = from; candidate <= limit; candidate++)
        {
            if (IsAvailable(candidate) && RunIsAvailable(candidate, count))
            {
                Take(candidate, count);
                page = candidate;
                return true;
            }
        }
        page = 0;
        return false;
    }

    private bool RunIsAvailable(long first, int count)
    {
        for (long p = first; p < first + count; p++)
            if (!IsAvailable(p))
                return false;
        return true;
    }

    private void Take(long first, int count)
    {
        for (long p = first; p < first + count; p++)
            _available[p >> 6] &= ~(1UL << (int)(p & 63));
        AvailablePages -= count;
    }

    private void EnsureMirror(long pages)
    {
        long words = (pages + 63) >> 6;
        if (words > _available.Length)
            Array.Resize(ref _available, (int)Math.Max(words, _available.Length * 2L));
    }

    private void EnsureCoverage(IFreeSpacePages pages, ref long nextPageNumber, long required)
    {
        while (true)
        {
            byte* directory = pages.GetPage(DirectoryPage);
            int sections = SectionCount(directory);
            if ((long)sections * BitsPerSection >= required)
                return;
            if (sections == MaxSections)
                throw new InvalidOperationException($"The free-space directory is full ({MaxSections} sections, {(long)MaxSections * BitsPerSection} pages).");
            long sectionPage = nextPageNumber++;
            required = Math.Max(required, nextPageNumber);
            InitializePage(pages.CreatePages(sectionPage, 1), sectionPage, PageFlags.FreeSpaceBitmap);
            directory = pages.ModifyPage(DirectoryPage);
            ((long*)(directory + SectionListOffset))[sections] = sectionPage;
            *(int*)(directory + SectionCountOffset) = sections + 1;
        }
    }

    private void SetPersistentBits(IFreeSpacePages pages, long pageNumber, int count, bool free)
    {
        byte* directory = pages.GetPage(DirectoryPage);
        for (long page = pageNumber; page < pageNumber + count; page++)
        {
            long section = page / BitsPerSection;
            long bit = page % BitsPerSection;
            ulong* bits = (ulong*)(pages.ModifyPage(SectionPage(directory, (int)section)) + PageHeader.Size);
            if (free)
                bits[bit >> 6] |= 1UL << (int)(bit & 63);
            else
                bits[bit >> 6] &= ~(1UL << (int)(bit & 63));
        }
    }

    private static void InitializePage(byte* page, long pageNumber, PageFlags flags)
    {
        var header = (PageHeader*)page;
        header->PageNumber = pageNumber;
        header->Flags = flags;
    }
}
