using System.Runtime.CompilerServices;

namespace Cairn.Recovery;

/// <summary>
/// The page runs a recovery has rebuilt, found by page number: which run starts at a page, and which run
/// covers a page inside it. A replay looks a run up for every page record it applies (a million times for a
/// full 256 MiB journal), so this is a table indexed by page number rather than a hash map: no hashing, one
/// or two cache lines per lookup, and runs come out in page order without a sort. Page numbers of an
/// environment are dense (below its high-water mark), so the table is split into chunks of
/// <see cref="ChunkPages"/> slots allocated only where runs are. Not thread-safe.
/// </summary>
internal sealed class PageRunMap
{
    /// <summary>Slots per chunk (16 bytes each: 64 KiB, below the large object heap's threshold).</summary>
    public const int ChunkPages = 4096;
    private const int ChunkShift = 12;

    // A run's first page holds the run (PageCount ≥ 1; Pointer 0 for a run written to the data file); each of its other
    // pages holds its distance from the first (Interior ≥ 1). An empty slot is all zeros.
    private struct Slot
    {
        public nint Pointer;
        public int PageCount;
        public int Interior;
    }

    private Slot[]?[] _chunks = [];

    /// <summary>Runs in the map.</summary>
    public int Count { get; private set; }

    /// <summary>The run that starts at <paramref name="pageNumber"/>, if one does.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryGetRun(long pageNumber, out nint pointer, out int pageCount)
    {
        ref Slot slot = ref Find(pageNumber);
        if (Unsafe.IsNullRef(ref slot) || slot.PageCount == 0)
        {
            pointer = 0;
            pageCount = 0;
            return false;
        }
        pointer = slot.Pointer;
        pageCount = slot.PageCount;
        return true;
    }

    /// <summary>The first page of the run covering <paramref name="pageNumber"/> (at its start or inside it), or −1 if none does.</summary>
    public long FirstPageOf(long pageNumber)
    {
        ref Slot slot = ref Find(pageNumber);
        if (Unsafe.IsNullRef(ref slot))
            return -1;
        if (slot.PageCount != 0)
            return pageNumber;
        return slot.Interior != 0 ? pageNumber - slot.Interior : -1;
    }

    /// <summary>
    /// Records a run at <paramref name="pageNumber"/> of <paramref name="pageCount"/> pages. No run may cover any of its
    /// pages but one starting at <paramref name="pageNumber"/> with the same count (then only its pointer changes).
    /// </summary>
    public void Set(long pageNumber, nint pointer, int pageCount)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(pageNumber);
        ArgumentOutOfRangeException.ThrowIfLessThan(pageCount, 1);
        // A reference into a chunk stays valid when later pages add chunks: chunks are never moved.
        ref Slot first = ref SlotFor(pageNumber);
        if (first.PageCount != 0)
        {
            if (first.PageCount != pageCount)
                throw new InvalidOperationException($"the run at {pageNumber} has {first.PageCount} pages, not {pageCount}");
            first.Pointer = pointer;
            return;
        }
        for (int i = 0; i < pageCount; i++)
        {
            ref Slot slot = ref SlotFor(pageNumber + i);
            if (slot.PageCount != 0 || slot.Interior != 0)
                throw new InvalidOperationException($"page {pageNumber + i} of the new run at {pageNumber} belongs to another run");
        }
        for (int i = 1; i < pageCount; i++)
            SlotFor(pageNumber + i).Interior = i;
        first.Pointer = pointer;
        first.PageCount = pageCount;
        Count++;
    }

    /// <summary>Removes the run that starts at <paramref name="pageNumber"/>; false if none does.</summary>
    public bool Remove(long pageNumber, out nint pointer, out int pageCount)
    {
        if (!TryGetRun(pageNumber, out pointer, out pageCount))
            return false;
        for (int i = 0; i < pageCount; i++)
            Find(pageNumber + i) = default;
        Count--;
        return true;
    }

    /// <summary>Removes every run.</summary>
    public void Clear()
    {
        _chunks = [];
        Count = 0;
    }

    /// <summary>Every run, in page order.</summary>
    public List<(long PageNumber, nint Pointer, int PageCount)> Runs()
    {
        var runs = new List<(long, nint, int)>(Count);
        for (int c = 0; c < _chunks.Length; c++)
        {
            if (_chunks[c] is not { } chunk)
                continue;
            for (int i = 0; i < chunk.Length; i++)
            {
                if (chunk[i].PageCount != 0)
                    runs.Add((((long)c << ChunkShift) + i, chunk[i].Pointer, chunk[i].PageCount));
            }
        }
        return runs;
    }

    /// <summary>The slot of a page, or a null reference where no chunk has been allocated.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ref Slot Find(long pageNumber)
    {
        long chunk = pageNumber >> ChunkShift;
        if ((ulong)chunk >= (ulong)_chunks.Length || _chunks[chunk] is not { } slots)
            return ref Unsafe.NullRef<Slot>();
        return ref slots[pageNumber & (ChunkPages - 1)];
    }

    /// <summary>The slot of a page, allocating its chunk (and growing the chunk table) if needed.</summary>
    private ref Slot SlotFor(long pageNumber)
    {
        long chunk = pageNumber >> ChunkShift;
        if (chunk >= _chunks.Length)
            Array.Resize(ref _chunks, checked((int)Math.Max(chunk + 1, Math.Min(2L * _chunks.Length, Array.MaxLength))));
        var slots = _chunks[chunk] ??= new Slot[ChunkPages];
        return ref slots[pageNumber & (ChunkPages - 1)];
    }
}
