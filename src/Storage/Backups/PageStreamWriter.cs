using System.Runtime.InteropServices;
using Cairn.Paging;

namespace Cairn.Backups;

/// <summary>
/// Pages written front to back into a new file through one buffer: pages are built in place in the buffer
/// (<see cref="NextPages"/>) or copied into it (<see cref="Append"/>), and the buffer goes out as one large sequential
/// write when full. The file's write-back goes in slices (<see cref="SlicedFileWriter"/>).
/// </summary>
internal sealed unsafe class PageStreamWriter : IDisposable
{
    /// <summary>Bytes per write: large enough that the writes cost little beside the copying.</summary>
    private const int BufferBytes = 1 << 20;

    private readonly SlicedFileWriter _file;
    // Called after each write with the bytes it wrote and the pages written so far.
    private readonly Action<long, long>? _written;
    private byte* _buffer;
    private int _filled;
    private long _flushedBytes;

    public PageStreamWriter(SlicedFileWriter file, Action<long, long>? written)
    {
        _file = file;
        _written = written;
        _buffer = (byte*)NativeMemory.AlignedAlloc(BufferBytes, StorageConstants.PageSize);
    }

    /// <summary>Pages handed out or appended so far, written or still in the buffer: the number the next page gets.</summary>
    public long PagesWritten => (_flushedBytes + _filled) / StorageConstants.PageSize;

    /// <summary>
    /// <paramref name="count"/> zeroed pages at the end of the file for the caller to fill; valid until the next call
    /// on this writer.
    /// </summary>
    public byte* NextPages(int count)
    {
        int bytes = count * StorageConstants.PageSize;
        if (bytes > BufferBytes)
            throw new ArgumentOutOfRangeException(nameof(count), count, "more pages than the buffer holds");
        if (_filled % StorageConstants.PageSize != 0)
            throw new InvalidOperationException("pages are handed out on page boundaries only");
        if (_filled + bytes > BufferBytes)
            Flush();
        byte* pages = _buffer + _filled;
        new Span<byte>(pages, bytes).Clear();
        _filled += bytes;
        return pages;
    }

    /// <summary>Appends <paramref name="length"/> bytes as they are.</summary>
    public void Append(byte* data, long length)
    {
        while (length > 0)
        {
            if (_filled == BufferBytes)
                Flush();
            int chunk = (int)Math.Min(length, BufferBytes - _filled);
            Buffer.MemoryCopy(data, _buffer + _filled, chunk, chunk);
            _filled += chunk;
            data += chunk;
            length -= chunk;
        }
    }

    /// <summary>Writes what the buffer holds.</summary>
    public void Flush()
    {
        if (_filled == 0)
            return;
        _file.Write(new ReadOnlySpan<byte>(_buffer, _filled));
        _flushedBytes += _filled;
        int written = _filled;
        _filled = 0;
        _written?.Invoke(written, _flushedBytes / StorageConstants.PageSize);
    }

    public void Dispose()
    {
        if (_buffer is null)
            return;
        NativeMemory.AlignedFree(_buffer);
        _buffer = null;
    }
}
