using System.Runtime.CompilerServices;

namespace Cairn.Paging;

/// <summary>
/// Where a writer's <see cref="DirtyRanges"/> live: pinned chunks (their addresses never change, so a
/// page's set is reached by pointer), handed out in order and all taken back at once when the writer's
/// dirty-page map is empty again. Kept from transaction to transaction: no allocation in steady state.
/// Not thread-safe: one writer's.
/// </summary>
internal sealed unsafe class DirtyRangeStore
{
    private const int ChunkLength = 256;

    private readonly List<DirtyRanges[]> _chunks = [];
    private int _used;

    /// <summary>Sets handed out since the last <see cref="Clear"/>.</summary>
    public int Used => _used;

    /// <summary>A set for one more dirty run; its content is the caller's to initialize.</summary>
    public DirtyRanges* Rent()
    {
        int chunk = _used / ChunkLength;
        if (chunk == _chunks.Count)
            _chunks.Add(GC.AllocateArray<DirtyRanges>(ChunkLength, pinned: true));
        var ranges = (DirtyRanges*)Unsafe.AsPointer(ref _chunks[chunk][_used % ChunkLength]);
        _used++;
        return ranges;
    }

    /// <summary>Takes every set back: no dirty run refers to one any more.</summary>
    public void Clear() => _used = 0;
}
