using Cairn.Pal;

namespace Cairn.Backups;

/// <summary>
/// A backup's file, written front to back so that the copy never floods the device's queue ahead of the journal's
/// writes (each an O_DSYNC write a committer waits for). Where the file system takes direct I/O, each chunk goes to
/// the device in one direct write from an aligned buffer and waits for it: nothing of the copy sits dirty in the page
/// cache, at most one chunk is in flight, and the final sync has only the device cache and the size to flush. Where
/// it does not (tmpfs, some network file systems), chunks are copied in the kernel (copy_file_range) into the page
/// cache and written back in slices: each full slice's write-back is started at once and the one before it waited
/// for, so at most two slices are dirty or in flight, never the whole file for one sync at the end.
/// <see cref="Complete"/> is the durability point (fdatasync).
/// </summary>
internal sealed unsafe class BackupFileWriter : IDisposable
{
    /// <summary>Bytes per write-back slice when writes go through the page cache.</summary>
    internal const long SliceBytes = 8L << 20;

    /// <summary>The largest chunk one <see cref="Write"/> or <see cref="CopyFrom"/> takes.</summary>
    internal const int MaxChunk = 1 << 20;

    private const int DirectAlignment = 4096;

    private readonly PalFile _file;
    private readonly byte* _buffer;
    private long _length;
    private long _sliceStart;

    /// <param name="path">The new file.</param>
    /// <param name="direct">Asks for direct I/O (taken where the file system allows); false: always through the page cache, in slices.</param>
    public BackupFileWriter(string path, bool direct = true)
    {
        _file = PalFile.Open(path, PalOpenFlags.CreateNew | (direct ? PalOpenFlags.Direct : 0));
        if (_file.IsDirect)
            _buffer = PalMemory.Allocate(MaxChunk, 0);
    }

    public long Length => _length;

    /// <summary>True when chunks go straight to the device.</summary>
    public bool IsDirect => _file.IsDirect;

    public void Write(ReadOnlySpan<byte> data)
    {
        CheckChunk(data.Length);
        if (IsDirect)
        {
            data.CopyTo(new Span<byte>(_buffer, MaxChunk));
            WriteDirect(data.Length);
            return;
        }
        _file.Write(data, _length);
        AdvanceBuffered(data.Length);
    }

    /// <summary>Appends <paramref name="length"/> bytes of <paramref name="source"/> from <paramref name="sourceOffset"/>.</summary>
    public void CopyFrom(PalFile source, long sourceOffset, int length)
    {
        CheckChunk(length);
        if (IsDirect)
        {
            int read = source.Read(new Span<byte>(_buffer, length), sourceOffset);
            if (read != length)
                throw new IOException($"'{source.FilePath}' is shorter than the backup needs (read {read} bytes at offset {sourceOffset}, expected {length})");
            WriteDirect(length);
            return;
        }
        _file.CopyRangeFrom(source, sourceOffset, _length, length);
        AdvanceBuffered(length);
    }

    /// <summary>Syncs the whole file (and its size): durable when this returns.</summary>
    public void Complete()
    {
        if (IsDirect && _file.GetSize() != _length)
            _file.SetSize(_length); // the last chunk was padded to the direct-I/O alignment
        if (!IsDirect && _length > _sliceStart)
            _file.SyncRange(_sliceStart, 0, PalSyncRange.Write);
        _file.Sync();
    }

    public void Dispose()
    {
        _file.Dispose();
        if (_buffer != null)
            PalMemory.Free(_buffer, MaxChunk);
    }

    private void CheckChunk(int length)
    {
        if (length > MaxChunk)
            throw new ArgumentOutOfRangeException(nameof(length), length, $"at most {MaxChunk} bytes at a time");
        if (IsDirect && _length % DirectAlignment != 0)
            throw new InvalidOperationException("only the last chunk of a direct file may end off the alignment");
    }

    /// <summary>Writes the buffer's first <paramref name="length"/> bytes, zero-padded to the alignment (trimmed by <see cref="Complete"/>).</summary>
    private void WriteDirect(int length)
    {
        int padded = (length + DirectAlignment - 1) & ~(DirectAlignment - 1);
        new Span<byte>(_buffer + length, padded - length).Clear();
        _file.Write(new ReadOnlySpan<byte>(_buffer, padded), _length);
        _length += length;
    }

    private void AdvanceBuffered(long bytes)
    {
        _length += bytes;
        while (_length - _sliceStart >= SliceBytes)
        {
            _file.SyncRange(_sliceStart, SliceBytes, PalSyncRange.Write);
            if (_sliceStart >= SliceBytes)
                _file.SyncRange(_sliceStart - SliceBytes, SliceBytes, PalSyncRange.Wait);
            _sliceStart += SliceBytes;
        }
    }
}
