using Cairn.Pal;

namespace Cairn.Journal;

/// <summary>
/// Growable native memory aligned to 4 KiB (what O_DIRECT writes need), reused from one journal
/// entry to the next so building an entry allocates nothing once the buffer is big enough.
/// Mapped straight from the OS (<see cref="PalMemory"/>); from 2 MiB on, in whole 2 MiB huge pages, so
/// filling a large buffer for the first time costs one page fault per 2 MiB rather than per 4 KiB.
/// Not thread-safe. Growing may move it: re-read <see cref="Pointer"/> after <see cref="EnsureCapacity(long)"/>.
/// </summary>
internal sealed unsafe class JournalBuffer : IDisposable
{
    public const int Alignment = JournalEntryHeader.Alignment;
    private const long HugePage = 2 << 20;

    private byte* _pointer;

    public JournalBuffer(long initialCapacity = 64 * 1024)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(initialCapacity);
        Capacity = MappedSize(initialCapacity);
        _pointer = Map(Capacity);
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
    public void EnsureCapacity(long bytes) => EnsureCapacity(bytes, Capacity);

    /// <summary>
    /// Grows (at least doubling) to hold <paramref name="bytes"/>, keeping only the first <paramref name="keep"/>
    /// bytes of the content (what is in use: a large entry's buffer need not copy the rest, nor touch it).
    /// </summary>
    public void EnsureCapacity(long bytes, long keep)
    {
        ObjectDisposedException.ThrowIf(_pointer == null, this);
        if (bytes <= Capacity)
            return;
        long capacity = MappedSize(Math.Max(bytes, Capacity * 2));
        byte* grown = Map(capacity);
        long kept = Math.Clamp(keep, 0, Capacity);
        System.Buffer.MemoryCopy(_pointer, grown, capacity, kept);
        PalMemory.Free(_pointer, Capacity);
        _pointer = grown;
        Capacity = capacity;
    }

    /// <summary>Whole 4 KiB pages; from 2 MiB on, whole huge pages.</summary>
    private static long MappedSize(long bytes)
        => bytes >= HugePage ? (bytes + HugePage - 1) & ~(HugePage - 1) : JournalEntryHeader.AlignUp(bytes);

    private static byte* Map(long capacity) => PalMemory.Allocate(capacity, capacity >= HugePage ? HugePage : Alignment);

    public void Dispose()
    {
        Free();
        GC.SuppressFinalize(this);
    }

    private void Free()
    {
        if (_pointer == null)
            return;
        PalMemory.Free(_pointer, Capacity);
        _pointer = null;
        Capacity = 0;
    }
}
