namespace Cairn.Paging;

/// <summary>
/// One bit per data-file page: set once the page has been validated since open (or written by us),
/// so each page read from disk is checked exactly once ("don't trust the disk") and every later
/// touch costs one load and a bit test.
/// </summary>
internal sealed class PageValidationMap
{
    // Read and set without a lock; replaced (grown) only under _growGate.
    private ulong[] _bits = [];
    // Serializes growing the map: two threads that find it too small copy it once.
    private readonly Lock _growGate = new();

    public bool IsValidated(long pageNumber)
    {
        var bits = Volatile.Read(ref _bits);
        long word = pageNumber >> 6;
        return word < bits.Length && (bits[word] & (1UL << (int)(pageNumber & 63))) != 0;
    }

    public void MarkValidated(long pageNumber, int count)
    {
        EnsureCapacity(pageNumber + count);
        var bits = Volatile.Read(ref _bits);
        for (long page = pageNumber; page < pageNumber + count; page++)
            Interlocked.Or(ref bits[page >> 6], 1UL << (int)(page & 63));
    }

    private void EnsureCapacity(long pages)
    {
        long words = (pages + 63) >> 6;
        if (words <= Volatile.Read(ref _bits).Length)
            return;
        lock (_growGate)
        {
            var current = _bits;
            if (words <= current.Length)
                return;
            // Grow generously: the data file grows in steps too, and every resize copies the map.
            // A bit set in the old array during the copy may be lost; that page is then simply
            // validated once more, which is harmless.
            var grown = new ulong[Math.Max(words, current.Length * 2)];
            for (int i = 0; i < current.Length; i++)
                grown[i] = Interlocked.Read(ref current[i]);
            Volatile.Write(ref _bits, grown);
        }
    }
}
