using System.Runtime.InteropServices;

namespace Cairn.Paging;

/// <summary>
/// The environment's root record, kept twice (pages 0 and 1 of the data file). Each write goes to
/// the copy with the older revision, so a torn header write always leaves the other copy intact.
/// Layout in docs/on-disk-format.md.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct FileHeader
{
    public const int Size = 152;
    public const ulong MagicValue = 0x314244_4E52494143; // "CAIRNDB1" little-endian
    /// <summary>Version 2: checksums are XXH3 (64-bit). Version 1 sealed them with XXH64 (<see cref="Hashing.Checksums.ComputeFormatVersion1"/>).</summary>
    public const int CurrentFormatVersion = 2;
    public const int ChecksummedLength = Size - sizeof(ulong);

    public ulong Magic;
    public int FormatVersion;
    public int PageSize;
    public Guid EnvironmentId;
    /// <summary>Incremented on every header write; the valid copy with the highest revision wins.</summary>
    public long Revision;
    /// <summary>The last transaction whose pages are all in the data file (and synced before this header was written).</summary>
    public long LastTransactionId;
    /// <summary>Where the data starts as of <see cref="LastTransactionId"/>.</summary>
    public RootRecord Root;
    /// <summary>
    /// Where recovery starts reading: the journal (sequence number) and offset just past the entry of
    /// <see cref="LastTransactionId"/>. Zero when no journal entry has been synced yet: then every journal is read.
    /// </summary>
    public long JournalSequence;
    public long JournalOffset;
    public long Reserved3;
    public long Reserved4;
    /// <summary>The checksum (<see cref="Hashing.Checksums"/>) of every byte before it, seeded with <see cref="MagicValue"/>.</summary>
    public ulong Checksum;
}
