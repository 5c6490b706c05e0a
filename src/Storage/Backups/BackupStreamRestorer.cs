using System.Buffers.Binary;
using System.Runtime.InteropServices;
using System.Text;
using Cairn.Hashing;
using Cairn.Journal.Files;
using Cairn.Paging;

namespace Cairn.Backups;

/// <summary>
/// Reads a backup stream into a staging folder, checking everything as it goes (docs/on-disk-format.md,
/// "Backup stream"): the header, each record's header, name and trailer checksum, the end record and the
/// checksum of the whole stream, and that nothing follows it. Any problem throws
/// <see cref="StorageFormatException"/> naming the stream and the offset; the caller commits the staging
/// folder only when this returns.
/// </summary>
internal sealed class BackupStreamRestorer(Stream stream, string streamName, StagingDirectory staging, string dataFileName)
{
    private const int BufferSize = 1 << 20;
    private readonly IncrementalChecksum _whole = new(BackupStreamHeader.MagicValue);
    private readonly byte[] _buffer = new byte[BufferSize];
    private long _offset;

    /// <summary>Restores every file; returns the backup's transaction id and how many bytes the files hold.</summary>
    public (long TransactionId, long Bytes, int Files) Run(Action<long>? progress, CancellationToken cancellation)
    {
        ReadStreamHeader();
        var names = new HashSet<string>(StringComparer.Ordinal);
        long bytes = 0;
        while (true)
        {
            cancellation.ThrowIfCancellationRequested();
            long recordOffset = _offset;
            var record = ReadRecordHeader();
            if (record.Kind == BackupRecordHeader.EndKind)
                return ReadEnd(recordOffset, record, names, bytes);
            string name = ReadName(recordOffset, record, names);
            bytes += CopyFile(name, record.Length, cancellation, progress is null ? null : done => progress(bytes + done));
            progress?.Invoke(bytes);
        }
    }

    private void ReadStreamHeader()
    {
        var header = default(BackupStreamHeader);
        var bytes = MemoryMarshal.AsBytes(new Span<BackupStreamHeader>(ref header));
        ReadExactly(bytes, "the stream header");
        if (header.Magic != BackupStreamHeader.MagicValue)
            throw Damage(0, "not a Cairn backup stream (wrong magic)");
        if (header.HeaderChecksum != Checksums.Compute(bytes[..BackupStreamHeader.ChecksummedLength], BackupStreamHeader.MagicValue))
            throw Damage(0, "the stream header's checksum does not match");
        if (header.FormatVersion != BackupStreamHeader.CurrentFormatVersion)
            throw Damage(0, $"backup stream format version {header.FormatVersion} is not supported (this build reads {BackupStreamHeader.CurrentFormatVersion})");
        if (header.Flags != 0)
            throw Damage(0, $"unknown flags {header.Flags:x}");
    }

    private BackupRecordHeader ReadRecordHeader()
    {
        long at = _offset;
        var record = default(BackupRecordHeader);
        var bytes = MemoryMarshal.AsBytes(new Span<BackupRecordHeader>(ref record));
        ReadExactly(bytes, "a record header");
        if (record.Magic != BackupRecordHeader.MagicValue)
            throw Damage(at, "not a record header (wrong magic)");
        if (record.HeaderChecksum != Checksums.Compute(bytes[..BackupRecordHeader.ChecksummedLength], BackupRecordHeader.MagicValue))
            throw Damage(at, "the record header's checksum does not match");
        bool valid = record.Kind switch
        {
            BackupRecordHeader.FileKind => record.NameLength is > 0 and <= BackupRecordHeader.MaxNameLength && record.Length >= 0,
            BackupRecordHeader.EndKind => record.NameLength == 0 && record.Length == BackupEndRecord.Size,
            _ => false,
        };
        if (!valid)
            throw Damage(at, $"invalid record (kind {record.Kind}, name length {record.NameLength}, length {record.Length})");
        return record;
    }

    private string ReadName(long recordOffset, BackupRecordHeader record, HashSet<string> names)
    {
        var bytes = _buffer.AsSpan(0, record.NameLength);
        ReadExactly(bytes, "a file name");
        string name = Encoding.UTF8.GetString(bytes);
        bool known = name == dataFileName
            ? record.Length >= 2L * StorageConstants.PageSize && record.Length % StorageConstants.PageSize == 0
            : name.StartsWith(JournalFileName.DirectoryName + "/", StringComparison.Ordinal)
              && JournalFileName.TryParse(name[(JournalFileName.DirectoryName.Length + 1)..], out _);
        if (!known)
            throw Damage(recordOffset, $"unexpected file '{name}' ({record.Length} bytes) in the backup");
        if (!names.Add(name))
            throw Damage(recordOffset, $"'{name}' appears twice in the backup");
        return name;
    }

    private long CopyFile(string name, long length, CancellationToken cancellation, Action<long>? progress)
    {
        long start = _offset;
        var checksum = new IncrementalChecksum(BackupRecordHeader.MagicValue);
        using (var file = new FileStream(staging.FilePath(name), FileMode.CreateNew, FileAccess.Write, FileShare.None, bufferSize: 0))
        {
            for (long done = 0; done < length;)
            {
                cancellation.ThrowIfCancellationRequested();
                var chunk = _buffer.AsSpan(0, (int)Math.Min(BufferSize, length - done));
                ReadExactly(chunk, $"'{name}' ({length} bytes from offset {start})");
                checksum.Append(chunk);
                file.Write(chunk);
                done += chunk.Length;
                progress?.Invoke(done);
            }
            long trailerAt = _offset;
            if (ReadTrailer($"the checksum of '{name}'") != checksum.Current)
                throw Damage(trailerAt, $"'{name}' does not match its checksum (its bytes are at [{start}, {trailerAt}))");
            file.Flush(flushToDisk: true);
        }
        return length;
    }

    private (long, long, int) ReadEnd(long recordOffset, BackupRecordHeader record, HashSet<string> names, long bytes)
    {
        var end = default(BackupEndRecord);
        ReadExactly(MemoryMarshal.AsBytes(new Span<BackupEndRecord>(ref end)), "the end record");
        ulong expected = _whole.Current;
        long trailerAt = _offset;
        if (ReadTrailer("the stream's checksum") != expected)
            throw Damage(trailerAt, "the stream does not match its checksum");
        if (end.FileCount != names.Count)
            throw Damage(recordOffset, $"the end record counts {end.FileCount} files, the stream holds {names.Count}");
        if (!names.Contains(dataFileName))
            throw Damage(recordOffset, $"the backup holds no {dataFileName}");
        Span<byte> probe = stackalloc byte[1];
        if (stream.Read(probe) != 0)
            throw Damage(_offset, "bytes follow the end record");
        return (end.TransactionId, bytes, names.Count);
    }

    private ulong ReadTrailer(string what)
    {
        Span<byte> trailer = stackalloc byte[sizeof(ulong)];
        ReadExactly(trailer, what);
        return BinaryPrimitives.ReadUInt64LittleEndian(trailer);
    }

    private void ReadExactly(Span<byte> into, string what)
    {
        int read = stream.ReadAtLeast(into, into.Length, throwOnEndOfStream: false);
        if (read < into.Length)
            throw Damage(_offset + read, $"the stream ends in {what} ({into.Length - read} of {into.Length} bytes missing): truncated");
        _whole.Append(into);
        _offset += into.Length;
    }

    private StorageFormatException Damage(long offset, string detail) => new(streamName, offset, "damaged backup: " + detail);
}
