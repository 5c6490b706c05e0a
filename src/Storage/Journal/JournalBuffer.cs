using System.Runtime.InteropServices;

namespace Cairn.Journal;

/// <summary>
/// Growable native memory aligned to 4 KiB (what O_DIRECT writes need), reused from one journal
/// entry to the next so building an entry allocates nothing once the buffer is big enough.
/// Not thread-safe. Growing may move it: re-read <see cref="Pointer"/> after <see cref="EnsureCapacity"/>.
/// </summary>
internal sealed unsafe class JournalBuffer : IDisposable
{
    public const int Alignment = JournalEntryHeader.Alignment;

    private byte* _pointer;

    public JournalBuffer(long initialCapacity = 64 * 1024)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(initialCapacity);
        Capacity = JournalEntryHeader.AlignUp(initialCapacity);
        _pointer = (byte*)NativeMemory.AlignedAlloc((nuint)Capacity, Alignment);
    }

    ~JournalBuffer() => Free();

    public byte* Pointer
    {
        get
        {
            ObjectDisposedException.ThrowIf(_pointer == null, this);
            return _pointer;
        }
    }

    public long Capacity { get; private set; }

    /// <summary>Grows (at least doubling) to hold <paramref name="bytes"/>, keeping the current content.</summary>
    public void EnsureCapacity(long bytes)
    {
        ObjectDisposedException.ThrowIf(_pointer == null, this);
        if (bytes <= Capacity)
            return;
        long capacity = JournalEntryHeader.AlignUp(Math.Max(bytes, Capacity * 2));
        _pointer = (byte*)NativeMemory.AlignedRealloc(_pointer, (nuint)capacity, Alignment);
        Capacity = capacity;
    }

    public void Dispose()
    {
        Free();
        GC.SuppressFinalize(this);
    }

    private void Free()
    {
        if (_pointer == null)
            return;
        NativeMemory.AlignedFree(_pointer);
        _pointer = null;
        Capacity = 0;
    }
}
