using System.Runtime.InteropServices;
using System.Text;
using Cairn.Hashing;

namespace Cairn.Backups;

/// <summary>
/// A backup written as one stream (docs/on-disk-format.md, "Backup stream"): a header, a record per file, an
/// end record whose trailer checksums everything before it. Written front to back; the stream need not seek.
/// </summary>
internal sealed class StreamBackupTarget : IBackupTarget
{
    private readonly Stream _stream;
    private readonly IncrementalChecksum _whole = new(BackupStreamHeader.MagicValue);
    private IncrementalChecksum? _file;
    private long _remaining;
    private long _files;
    // Holds what CopyFrom reads before it goes into the stream: the largest chunk asked for so far.
    private byte[]? _buffer;

    /// <summary>
    /// The transaction the end record names instead of the copy's own: a compacted copy renumbers its transactions,
    /// so its stream names the source's transaction whose content it holds.
    /// </summary>
    public long? SourceTransactionId { get; init; }

    public StreamBackupTarget(Stream stream, Guid environmentId)
    {
        _stream = stream;
        var header = new BackupStreamHeader
        {
            Magic = BackupStreamHeader.MagicValue,
            FormatVersion = BackupStreamHeader.CurrentFormatVersion,
            EnvironmentId = environmentId,
            CreatedTicks = DateTime.UtcNow.Ticks,
        };
        header.HeaderChecksum = Checksums.Compute(AsBytes(ref header)[..BackupStreamHeader.ChecksummedLength], BackupStreamHeader.MagicValue);
        Emit(AsBytes(ref header));
    }

    public void BeginFile(string relativePath, long length, bool wholePages = false)
    {
        byte[] name = Encoding.UTF8.GetBytes(relativePath);
        EmitRecordHeader(BackupRecordHeader.FileKind, name.Length, length);
        Emit(name);
        _file = new IncrementalChecksum(BackupRecordHeader.MagicValue);
        _remaining = length;
    }

    public void Write(ReadOnlySpan<byte> data)
    {
        _remaining -= data.Length;
        if (_remaining < 0)
            throw new InvalidOperationException("more bytes than the file's announced length");
        _file!.Append(data);
        Emit(data);
    }

    // Checksums the bytes here: a page of a mapping that cannot be read would fault the process.
    public bool WritesMappedPagesSafely => false;

    public void CopyFrom(Cairn.Pal.PalFile source, long sourceOffset, int length)
    {
        if (_buffer is null || _buffer.Length < length)
            _buffer = GC.AllocateUninitializedArray<byte>(length);
        var chunk = _buffer.AsSpan(0, length);
        int read = source.Read(chunk, sourceOffset);
        if (read != length)
            throw new IOException($"'{source.FilePath}' is shorter than the backup needs (read {read} bytes at offset {sourceOffset}, expected {length})");
        Write(chunk);
    }

    public void EndFile()
    {
        if (_remaining != 0)
            throw new InvalidOperationException($"{_remaining} bytes of the file were not written");
        EmitTrailer(_file!.Current);
        _file = null;
        _files++;
    }

    public void Complete(long transactionId)
    {
        EmitRecordHeader(BackupRecordHeader.EndKind, 0, BackupEndRecord.Size);
        var end = new BackupEndRecord { TransactionId = SourceTransactionId ?? transactionId, FileCount = _files };
        Emit(MemoryMarshal.AsBytes(new Span<BackupEndRecord>(ref end)));
        EmitTrailer(_whole.Current);
        _stream.Flush();
    }

    private void EmitRecordHeader(int kind, int nameLength, long length)
    {
        var record = new BackupRecordHeader { Magic = BackupRecordHeader.MagicValue, Kind = kind, NameLength = nameLength, Length = length };
        var bytes = MemoryMarshal.AsBytes(new Span<BackupRecordHeader>(ref record));
        record.HeaderChecksum = Checksums.Compute(bytes[..BackupRecordHeader.ChecksummedLength], BackupRecordHeader.MagicValue);
        Emit(bytes);
    }

    private void EmitTrailer(ulong checksum)
    {
        Span<byte> trailer = stackalloc byte[sizeof(ulong)];
        System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(trailer, checksum);
        Emit(trailer);
    }

    private void Emit(ReadOnlySpan<byte> data)
    {
        _whole.Append(data);
        _stream.Write(data);
    }

    private static Span<byte> AsBytes(ref BackupStreamHeader header) => MemoryMarshal.AsBytes(new Span<BackupStreamHeader>(ref header));
}
