using System.Runtime.InteropServices;
using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>
/// A read-only shared mapping of a file. It outlives the file handle it came from; disposing it
/// unmaps, so whoever hands out pointers into it must keep it alive until they are no longer used.
/// </summary>
public sealed unsafe class PalMapping : SafeHandle
{
    internal PalMapping(nint address, long length) : base(0, ownsHandle: true)
    {
        SetHandle(address);
        Length = length;
    }

    /// <summary>True when the mapping holds no address (never for a mapping returned by <see cref="PalFile.Map"/>).</summary>
    public override bool IsInvalid => handle == 0;

    /// <summary>The number of bytes mapped, from the start of the file.</summary>
    public long Length { get; }

    /// <summary>The first byte of the mapping; valid until the mapping is disposed.</summary>
    public byte* Pointer
    {
        get
        {
            ObjectDisposedException.ThrowIf(IsClosed, this);
            return (byte*)handle;
        }
    }

    /// <summary>The mapped bytes [<paramref name="offset"/>, <paramref name="offset"/> + <paramref name="length"/>); valid until the mapping is disposed.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The range is negative or reaches past <see cref="Length"/>.</exception>
    /// <exception cref="ObjectDisposedException">The mapping has been disposed.</exception>
    public ReadOnlySpan<byte> GetSpan(long offset, int length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        if (offset + length > Length)
            throw new ArgumentOutOfRangeException(nameof(length), $"[{offset}, {offset + length}) is outside the mapping of {Length} bytes");
        return new ReadOnlySpan<byte>(Pointer + offset, length);
    }

    /// <summary>Asks the OS to read a range ahead of use (MADV_WILLNEED).</summary>
    public void Prefetch(long offset, long length)
    {
        int status = NativeMethods.cairn_map_prefetch(Pointer + offset, length, out int osError);
        PalErrors.ThrowIfFailed(status, osError, "prefetching a mapped range", path: null, offset);
    }

    /// <summary>
    /// Reads a range in now and maps it, so touching it takes no page faults (MADV_POPULATE_READ; on
    /// kernels without it, asynchronous read-ahead). Returns once the range is in memory.
    /// </summary>
    public void Populate(long offset, long length)
    {
        if (offset < 0 || length < 0 || offset + length > Length)
            throw new ArgumentOutOfRangeException(nameof(length), $"[{offset}, {offset + length}) is outside the mapping of {Length} bytes");
        int status = NativeMethods.cairn_map_populate(Pointer + offset, length, out int osError);
        PalErrors.ThrowIfFailed(status, osError, "populating a mapped range", path: null, offset);
    }

    /// <summary>Unmaps; false if the OS refused (the runtime then reports it to a debugger, nothing throws).</summary>
    protected override bool ReleaseHandle()
        => NativeMethods.cairn_unmap(handle, Length, out _) == (int)PalStatus.Ok;
}
