using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>
/// Anonymous memory straight from the OS (mmap / VirtualAlloc), for allocators that carve it up
/// themselves: zero-filled when it arrives, aligned as asked, and on Linux advised for transparent huge
/// pages when length and alignment are multiples of 2 MiB, so touching it costs one fault per 2 MiB.
/// </summary>
public static unsafe class PalMemory
{
    /// <summary>
    /// Maps <paramref name="length"/> bytes of zero-filled read-write memory at an address that is a multiple
    /// of <paramref name="alignment"/> (a power of two, at least the OS page size; 0 for the page size).
    /// Give it back with <see cref="Free"/> and the same length.
    /// </summary>
    /// <exception cref="NativeOutOfMemoryException">The OS has no memory to give.</exception>
    /// <exception cref="PalIOException">The OS refused for another reason (an invalid length or alignment).</exception>
    public static byte* Allocate(long length, long alignment)
    {
        int status = NativeMethods.cairn_memory_allocate(length, alignment, out nint address, out int osError);
        PalErrors.ThrowIfFailed(status, osError, "allocating memory", path: null);
        return (byte*)address;
    }

    /// <summary>Unmaps memory <see cref="Allocate"/> returned; <paramref name="length"/> is the length it was allocated with.</summary>
    /// <exception cref="PalIOException">The OS refused (the address or length is not one <see cref="Allocate"/> returned).</exception>
    public static void Free(byte* address, long length)
    {
        int status = NativeMethods.cairn_memory_free((nint)address, length, out int osError);
        PalErrors.ThrowIfFailed(status, osError, "freeing memory", path: null);
    }
}
