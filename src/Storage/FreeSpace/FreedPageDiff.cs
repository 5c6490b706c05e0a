using System.Numerics;
using Cairn.Paging;

namespace Cairn.FreeSpace;

/// <summary>
/// The pages a transaction freed, read off its bitmap sections: a journal entry carries the sections it changed,
/// not a list of frees, so a replica applying it finds them as the bits that went from in use to free.
/// </summary>
internal static unsafe class FreedPageDiff
{
    /// <summary>
    /// Adds to <paramref name="freed"/> every page whose bit is set in <paramref name="after"/> and clear in
    /// <paramref name="before"/> (null: a section new in this transaction, nothing free before), for the section at
    /// <paramref name="sectionIndex"/> of the directory.
    /// </summary>
    public static void Add(byte* before, byte* after, int sectionIndex, List<long> freed)
    {
        ulong* old = before is null ? null : (ulong*)(before + PageHeader.Size);
        ulong* now = (ulong*)(after + PageHeader.Size);
        long first = (long)sectionIndex * FreeSpaceMap.BitsPerSection;
        for (int w = 0; w < FreeSpaceMap.BitsPerSection / 64; w++)
        {
            ulong word = now[w] & ~(old is null ? 0 : old[w]);
            while (word != 0)
            {
                int bit = BitOperations.TrailingZeroCount(word);
                word &= word - 1;
                freed.Add(first + w * 64 + bit);
            }
        }
    }
}
