using System.Runtime.InteropServices;

namespace Cairn.Pal;

/// <summary>One contiguous buffer for a vectored write; mirrors <c>cairn_buffer</c> (16 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
public readonly unsafe struct PalBuffer
{
    /// <summary>The struct's size in bytes, checked against the native <c>sizeof(cairn_buffer)</c>.</summary>
    public const int Size = 16;

    /// <summary>The first byte of the buffer; it must stay valid (pinned) until the write returns.</summary>
    public readonly void* Data;
    /// <summary>The buffer's length in bytes.</summary>
    public readonly long Length;

    /// <summary>Describes <paramref name="length"/> bytes at <paramref name="data"/>.</summary>
    public PalBuffer(void* data, long length)
    {
        Data = data;
        Length = length;
    }
}

/// <summary>
/// One write of the data-file writer: <see cref="Length"/> bytes from <see cref="Data"/> at
/// <see cref="Offset"/>; mirrors <c>cairn_write_op</c> (24 bytes). Arrays must be sorted by offset.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
public readonly unsafe struct PalWriteOp
{
    /// <summary>The struct's size in bytes, checked against the native <c>sizeof(cairn_write_op)</c>.</summary>
    public const int Size = 24;

    /// <summary>The bytes to write; they must stay valid (pinned) until the write returns.</summary>
    public readonly void* Data;
    /// <summary>Where in the file the bytes go, in bytes from its start.</summary>
    public readonly long Offset;
    /// <summary>How many bytes to write.</summary>
    public readonly long Length;

    /// <summary>Describes writing <paramref name="length"/> bytes from <paramref name="data"/> at <paramref name="offset"/>.</summary>
    public PalWriteOp(void* data, long offset, long length)
    {
        Data = data;
        Offset = offset;
        Length = length;
    }
}

/// <summary>Mirrors <c>cairn_fs_info</c> (48 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct NativeFsInfo
{
    public const int Size = 48;

    public long FreeBytes;
    public long TotalBytes;
    public long FsType;
    public int BlockSize;
    public int SupportsDirectIo;
    public int IsVolatile;
    public int Reserved;
    public long Reserved2;
}

/// <summary>Mirrors <c>cairn_io_options</c> (16 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct NativeIoOptions
{
    public const int Size = 16;

    public int Flags;
    public int RingEntries;
    public long Reserved;
}
