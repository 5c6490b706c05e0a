using System.Runtime.InteropServices;

namespace Cairn.Shipping;

/// <summary>
/// The 64 bytes before each journal entry in a shipped-entries stream (<see cref="ShippedEntryStream"/>): what the
/// entry is and how long, sealed by a checksum, so a reader finds the next frame without trusting the entry and
/// tells a cut-short or damaged stream from its end. The entry itself carries its own hashes. Layout in
/// docs/on-disk-format.md ("Shipped-entries stream").
/// </summary>
/// <remarks>
/// Bytes: [0,8) magic "CAIRNSF1"; [8,12) format version; [12,16) reserved, zero; [16,24) transaction id;
/// [24,32) entry length; [32,48) environment id; [48,56) reserved, zero; [56,64) checksum of [0,56) seeded with the
/// transaction id. Little-endian.
/// </remarks>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct ShippedEntryFrame
{
    public const int Size = 64;
    public const ulong MagicValue = 0x3146_534E_5249_4143; // "CAIRNSF1" little-endian
    public const int CurrentFormatVersion = 1;
    public const int ChecksummedLength = Size - sizeof(ulong);
    /// <summary>No entry is larger (a journal entry's own limit is lower): a length past it is damage, not an allocation to try.</summary>
    public const long MaxEntryLength = 1L << 31;

    public ulong Magic;
    public int FormatVersion;
    public int Reserved0;
    public long TransactionId;
    public long EntryLength;
    public Guid EnvironmentId;
    public long Reserved1;
    public ulong Checksum;
}
