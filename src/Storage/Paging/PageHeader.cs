using System.Runtime.InteropServices;

namespace Cairn.Paging;

/// <summary>
/// The first 32 bytes of every page (of the first page of an overflow run). Layout in
/// docs/on-disk-format.md. The checksum covers bytes [16, end of the page or run) and is seeded with
/// the page number, so a page written at the wrong place fails validation like a corrupt one.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct PageHeader
{
    public const int Size = 32;
    public const int ChecksumOffset = 8;
    /// <summary>Where the checksummed bytes start: everything after PageNumber and Checksum.</summary>
    public const int ChecksummedFrom = 16;

    /// <summary>The page's own number: a page read from the wrong offset is caught.</summary>
    public long PageNumber;
    public ulong Checksum;
    public PageFlags Flags;
    /// <summary>Slotted pages: the end of the slot array (offset from the page start).</summary>
    public ushort Lower;
    /// <summary>Slotted pages: the start of node data, which grows down from the page end.</summary>
    public ushort Upper;
    public ushort Reserved1;
    /// <summary>Overflow pages: the number of value bytes after the header; the run is ceil((32 + size) / 8192) pages.</summary>
    public int OverflowSize;
    public uint Reserved2;
}
