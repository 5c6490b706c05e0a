using System.Runtime.InteropServices;
using Cairn.Hashing;
using Cairn.Paging;

namespace Cairn.Journal;

/// <summary>
/// The first <see cref="Size"/> bytes of every journal entry: one committed transaction. The payload
/// (page records, possibly compressed) follows at once, and the entry is padded with zeros to a
/// multiple of <see cref="Alignment"/>. Layout in docs/on-disk-format.md ("Journal entries").
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct JournalEntryHeader
{
    public const int Size = 192;
    public const ulong MagicValue = 0x31454A_4E52494143; // "CAIRNJE1" little-endian
    /// <summary>Version 2: hashes are XXH3 (64-bit). Version 1 sealed them with XXH64 (<see cref="Checksums.ComputeFormatVersion1"/>).</summary>
    public const int CurrentFormatVersion = 2;

    /// <summary>Entries start and end on this boundary (O_DIRECT writes).</summary>
    public const int Alignment = 4096;

    /// <summary>The header checksum covers every byte before it.</summary>
    public const int ChecksummedLength = Size - sizeof(ulong);

    public ulong Magic;
    public int FormatVersion;
    public JournalEntryFlags Flags;
    public long TransactionId;
    /// <summary>The environment that wrote the entry (its data file's <c>EnvironmentId</c>); the reader reports it, the caller checks it.</summary>
    public Guid EnvironmentId;
    /// <summary>Number of page records in the payload.</summary>
    public int PageCount;
    public int Reserved0;
    /// <summary>Bytes of page records; equal to <see cref="PayloadSize"/> unless the payload is compressed.</summary>
    public long UncompressedPayloadSize;
    /// <summary>Bytes stored after the header.</summary>
    public long PayloadSize;
    /// <summary>The checksum (<see cref="Checksums"/>) of the stored payload bytes, seeded with <see cref="TransactionId"/>.</summary>
    public ulong PayloadHash;
    /// <summary>The environment's state after this transaction: what recovery puts in the file header.</summary>
    public RootRecord Root;
    /// <summary>When the entry was written, UTC ticks (informational).</summary>
    public long Timestamp;
    /// <summary>
    /// The environment whose journal writer wrote the entry into this file when that is not
    /// <see cref="EnvironmentId"/> (a branch's entry in its root's shared journal); zero when the entry's
    /// own environment wrote it. Recovery accepts a journal that holds entries of others only if it
    /// holds one of its own or one it wrote for another.
    /// </summary>
    public Guid WrittenBy;
    /// <summary>
    /// Bytes from the start of the write that carried the entry to the entry (0 for the first or only
    /// entry of a write). Entries after a torn one in the same write were never acknowledged: recovery
    /// tells them from damage in the middle of the log by where their write began.
    /// </summary>
    public long OffsetInWrite;
    public long Reserved3;
    public long Reserved4;
    /// <summary>The checksum of bytes [0, <see cref="ChecksummedLength"/>), seeded with <see cref="TransactionId"/>.</summary>
    public ulong HeaderChecksum;

    /// <summary>
    /// Rewrites the fields the journal writer decides (<see cref="WrittenBy"/>, <see cref="OffsetInWrite"/>)
    /// in a finished entry and seals its header again; the payload and its hash are untouched.
    /// </summary>
    public static unsafe void StampWrite(byte* entry, Guid writtenBy, long offsetInWrite)
    {
        var header = (JournalEntryHeader*)entry;
        if (header->WrittenBy == writtenBy && header->OffsetInWrite == offsetInWrite)
            return;
        header->WrittenBy = writtenBy;
        header->OffsetInWrite = offsetInWrite;
        header->HeaderChecksum = Checksums.Compute(entry, ChecksummedLength, unchecked((ulong)header->TransactionId));
    }

    /// <summary>The whole entry's size for a payload of <paramref name="payloadSize"/> stored bytes.</summary>
    public static long EntrySize(long payloadSize) => AlignUp(Size + payloadSize);

    public static long AlignUp(long bytes) => (bytes + Alignment - 1) & ~(long)(Alignment - 1);
}
