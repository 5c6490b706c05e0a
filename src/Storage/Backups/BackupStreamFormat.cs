using System.Runtime.InteropServices;

namespace Cairn.Backups;

/// <summary>
/// The start of a backup stream (docs/on-disk-format.md, "Backup stream"). 48 bytes:
/// Magic 0–7 (<c>CAIRNBK1</c>), FormatVersion 8–11, Flags 12–15 (0), EnvironmentId 16–31, CreatedTicks 32–39,
/// HeaderChecksum 40–47 (XXH3 of bytes [0, 40), seed = Magic).
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct BackupStreamHeader
{
    public const int Size = 48;
    public const ulong MagicValue = 0x314B_424E_5249_4143; // "CAIRNBK1" little-endian
    public const int CurrentFormatVersion = 1;
    public const int ChecksummedLength = Size - sizeof(ulong);

    public ulong Magic;
    public int FormatVersion;
    public int Flags;
    public Guid EnvironmentId;
    public long CreatedTicks;
    public ulong HeaderChecksum;
}

/// <summary>
/// The head of one record of a backup stream: a file (<see cref="FileKind"/>) or the end (<see cref="EndKind"/>).
/// 32 bytes: Magic 0–7 (<c>CAIRNBKR</c>), Kind 8–11, NameLength 12–15 (UTF-8 bytes of the file's path after the
/// header), Length 16–23 (bytes of the body after the name), HeaderChecksum 24–31 (XXH3 of bytes [0, 24),
/// seed = Magic). Every record ends with an 8-byte trailer checksum after its body.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct BackupRecordHeader
{
    public const int Size = 32;
    public const ulong MagicValue = 0x524B_424E_5249_4143; // "CAIRNBKR" little-endian
    public const int ChecksummedLength = Size - sizeof(ulong);
    public const int FileKind = 1;
    public const int EndKind = 2;
    public const int MaxNameLength = 255;

    public ulong Magic;
    public int Kind;
    public int NameLength;
    public long Length;
    public ulong HeaderChecksum;
}

/// <summary>
/// The body of the end record: TransactionId 0–7 (the transaction the backup holds), FileCount 8–15 (file records
/// before it). Its trailer is the XXH3 of every byte of the stream before the trailer, seed = the stream's magic.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct BackupEndRecord
{
    public const int Size = 16;

    public long TransactionId;
    public long FileCount;
}
