using Cairn.Hashing;

namespace Cairn.Paging;

/// <summary>Computes and checks page checksums (<see cref="Checksums"/> of bytes [16, end of run), seeded with the page number).</summary>
internal static unsafe class PageChecksum
{
    /// <summary>The number of pages a page occupies: 1, or the length of its overflow run.</summary>
    public static int RunLength(byte* page)
    {
        var header = (PageHeader*)page;
        if ((header->Flags & PageFlags.Overflow) == 0)
            return 1;
        return PagesForOverflow(header->OverflowSize);
    }

    public static int PagesForOverflow(long valueSize)
        => checked((int)((PageHeader.Size + valueSize + StorageConstants.PageSize - 1) / StorageConstants.PageSize));

    public static ulong Compute(byte* page, long pageNumber, int runLength)
        => Checksums.Compute(page + PageHeader.ChecksummedFrom,
            (long)runLength * StorageConstants.PageSize - PageHeader.ChecksummedFrom, unchecked((ulong)pageNumber));

    /// <summary>Stamps the page number and checksum of a page (run) about to leave scratch memory.</summary>
    public static void Stamp(byte* page, long pageNumber, int runLength)
    {
        var header = (PageHeader*)page;
        header->PageNumber = pageNumber;
        header->Checksum = Compute(page, pageNumber, runLength);
    }

    /// <summary>
    /// Throws <see cref="PageCorruptionException"/> naming the file and page unless the page carries
    /// its own number and a matching checksum. <paramref name="availablePages"/> bounds an overflow
    /// run so a corrupt length cannot make the check read past the file.
    /// </summary>
    public static void Validate(byte* page, long pageNumber, long availablePages, string filePath)
    {
        var header = (PageHeader*)page;
        if (header->PageNumber != pageNumber)
            throw new PageCorruptionException(filePath, pageNumber, header->Checksum, 0,
                $"the page says it is page {header->PageNumber}");
        int run = 1;
        if ((header->Flags & PageFlags.Overflow) != 0)
        {
            if (header->OverflowSize < 0 || pageNumber + PagesForOverflow(header->OverflowSize) > availablePages)
                throw new PageCorruptionException(filePath, pageNumber, header->Checksum, 0,
                    $"its overflow length {header->OverflowSize} runs past the end of the file");
            run = PagesForOverflow(header->OverflowSize);
        }
        ulong computed = Compute(page, pageNumber, run);
        if (computed != header->Checksum)
            throw new PageCorruptionException(filePath, pageNumber, header->Checksum, computed, "checksum mismatch");
    }
}
