using System.Runtime.InteropServices;
using Cairn.Hashing;

namespace Cairn.Paging;

/// <summary>
/// Reads, chooses, repairs and writes the two header copies. The newest valid copy wins; an
/// invalid or older copy is rewritten from it at open, so a single torn write is always repaired.
/// </summary>
/// <remarks>
/// Either copy may be the one that survives (the newer can be torn by a crash or damaged later), so
/// the older copy must always be a complete place to recover from: the journals from its position on
/// are kept until both copies are past them (<see cref="Previous"/>; docs/decisions.md, reliability 3).
/// </remarks>
internal sealed class HeaderStore(DataFile file)
{
    private int _currentSlot;

    public FileHeader Current { get; private set; }

    /// <summary>
    /// What the other copy holds: the header written before <see cref="Current"/> (or the same state,
    /// after a repair at open or a <see cref="CatchUp"/>). Journals it still needs must be kept.
    /// </summary>
    public FileHeader Previous { get; private set; }

    /// <summary>Why a copy was found invalid at the last <see cref="Load"/> (and rewritten), or null when both were valid.</summary>
    public (long Offset, string Problem)? RepairedCopy { get; private set; }

    /// <summary>
    /// Loads the winning copy and, unless <paramref name="repair"/> is false (a read-only open, which writes nothing),
    /// repairs the other. Throws naming the file and offsets if neither is valid. <paramref name="admit"/> judges the
    /// winning copy before anything is written; what it throws fails the load.
    /// </summary>
    public void Load(bool repair = true, Action<FileHeader>? admit = null)
    {
        var first = Check(0, out string? firstProblem);
        var second = Check(1, out string? secondProblem);
        if (first is null && second is null)
            throw new StorageFormatException(file.FilePath, 0,
                $"both header copies are invalid (offset 0: {firstProblem}; offset {StorageConstants.PageSize}: {secondProblem})");

        bool firstWins = second is null || (first is not null && first.Value.Revision >= second.Value.Revision);
        _currentSlot = firstWins ? 0 : 1;
        Current = firstWins ? first!.Value : second!.Value;
        admit?.Invoke(Current);

        var other = firstWins ? second : first;
        string? otherProblem = firstWins ? secondProblem : firstProblem;
        RepairedCopy = other is null ? ((1 - _currentSlot) * (long)StorageConstants.PageSize, otherProblem!) : null;
        if (repair && (other is null || other.Value.Revision != Current.Revision || other.Value.Checksum != Current.Checksum))
            file.WriteHeader(1 - _currentSlot, Current);
        Previous = Current;
    }

    /// <summary>Writes a new revision into the copy not holding the current one.</summary>
    public void Write(FileHeader header)
    {
        header.Revision = Current.Revision + 1;
        header.Checksum = ComputeChecksum(header);
        int slot = 1 - _currentSlot;
        file.WriteHeader(slot, header);
        _currentSlot = slot;
        Previous = Current;
        Current = header;
    }

    /// <summary>
    /// Brings the older copy up to the current state (a second write of it), so both copies describe the
    /// same transaction and no journal is needed for either: a clean close and an explicit checkpoint.
    /// </summary>
    public void CatchUp()
    {
        if (Previous.LastTransactionId != Current.LastTransactionId || Previous.JournalSequence != Current.JournalSequence ||
            Previous.JournalOffset != Current.JournalOffset)
            Write(Current);
    }

    /// <summary>Formats a new file: both copies, revision 1 and 2, so neither is ever missing.</summary>
    public void Initialize(FileHeader header)
    {
        header.Revision = 1;
        header.Checksum = ComputeChecksum(header);
        file.WriteHeader(0, header);
        Current = header;
        _currentSlot = 0;
        Write(header);
    }

    public static ulong ComputeChecksum(FileHeader header) => Checksums.Compute(ChecksummedBytes(in header), FileHeader.MagicValue);

    /// <summary>A header of format version 1, sealed with that version's checksum: refused for its version, not as damage.</summary>
    private static bool IsFormatVersion1(FileHeader header)
        => header.FormatVersion == 1 && header.Checksum == Checksums.ComputeFormatVersion1(ChecksummedBytes(in header), FileHeader.MagicValue);

    private static ReadOnlySpan<byte> ChecksummedBytes(in FileHeader header)
        => MemoryMarshal.AsBytes(new ReadOnlySpan<FileHeader>(in header))[..FileHeader.ChecksummedLength];

    private static string UnsupportedVersion(FileHeader header)
        => $"format version {header.FormatVersion} is not supported (this build reads {FileHeader.CurrentFormatVersion})";

    private FileHeader? Check(int slot, out string? problem)
    {
        var header = file.ReadHeader(slot);
        problem = header switch
        {
            null => "the file is too short to hold it",
            { Magic: not FileHeader.MagicValue } => "not a Cairn header (wrong file?)",
            { } h when h.Checksum != ComputeChecksum(h) => IsFormatVersion1(h) ? UnsupportedVersion(h) : "checksum mismatch",
            { FormatVersion: not FileHeader.CurrentFormatVersion } h => UnsupportedVersion(h),
            { PageSize: not StorageConstants.PageSize } h => $"page size {h.PageSize} (this build uses {StorageConstants.PageSize})",
            _ => null,
        };
        return problem is null ? header : null;
    }
}
