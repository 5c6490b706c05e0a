using System.Runtime.InteropServices;

namespace Cairn.Paging;

/// <summary>
/// Native memory for page versions that live outside the data file: pages a write transaction
/// modifies, and committed versions until the flusher has written them and no reader needs them.
/// Single pages (the common case) are recycled through a free list to keep malloc off the commit path.
/// </summary>
internal sealed unsafe class ScratchAllocator : IDisposable
{
    private const int MaxCachedPages = 4096; // 32 MiB kept for reuse at most
    private readonly Stack<nint> _freeSinglePages = new(MaxCachedPages);
    // Guards the cached single pages (the writer allocates, the flusher and reclaimer free); the byte count is interlocked.
    private readonly Lock _gate = new();
    private long _bytesInUse;

    /// <summary>Bytes held by live page versions (not counting the recycled free list).</summary>
    public long BytesInUse => Interlocked.Read(ref _bytesInUse);

    public byte* Allocate(int pageCount)
    {
        long bytes = (long)pageCount * StorageConstants.PageSize;
        Interlocked.Add(ref _bytesInUse, bytes);
        if (pageCount == 1)
        {
            lock (_gate)
            {
                if (_freeSinglePages.TryPop(out nint cached))
                    return (byte*)cached;
            }
        }
        return (byte*)NativeMemory.AlignedAlloc((nuint)bytes, 4096);
    }

    public byte* AllocateZeroed(int pageCount)
    {
        byte* memory = Allocate(pageCount);
        NativeMemory.Clear(memory, (nuint)((long)pageCount * StorageConstants.PageSize));
        return memory;
    }

    public void Free(byte* memory, int pageCount)
    {
        Interlocked.Add(ref _bytesInUse, -(long)pageCount * StorageConstants.PageSize);
        if (pageCount == 1)
        {
            lock (_gate)
            {
                if (_freeSinglePages.Count < MaxCachedPages)
                {
                    _freeSinglePages.Push((nint)memory);
                    return;
                }
            }
        }
        NativeMemory.AlignedFree(memory);
    }

    public void Dispose()
    {
        lock (_gate)
        {
            while (_freeSinglePages.TryPop(out nint cached))
                NativeMemory.AlignedFree((void*)cached);
        }
    }
}
