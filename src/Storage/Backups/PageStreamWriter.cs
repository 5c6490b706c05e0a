using System.Runtime.InteropServices;
using Cairn.Pal;
using Cairn.Paging;

namespace Cairn.Backups;

/// <summary>
/// Pages written front to back into a new file through two buffers: pages are built in place in one buffer
/// (<see cref="NextPages"/>) or copied into it (<see cref="Append"/>) while the other is being written, as one large
/// sequential write, on a pool thread (a write-behind one write deep, as LMDB's compacting copy does). The file is
/// opened for direct I/O where the file system allows (<see cref="SlicedFileWriter"/>): every write is whole pages
/// from page-aligned memory, so it goes to the device with no copy into the page cache.
/// </summary>
internal sealed unsafe class PageStreamWriter : IDisposable
{
    /// <summary>Bytes per write: large enough that the writes cost little beside the copying.</summary>
    private const int BufferBytes = 1 << 20;

    private readonly SlicedFileWriter _file;
    // Called after each write with the bytes it wrote and the pages written so far.
    private readonly Action<long, long>? _written;
    private byte* _buffer;
    // The buffer being written while _buffer fills; its write is _writing.
    private byte* _spare;
    private Task? _writing;
    private int _writingBytes;
    private int _filled;
    // Bytes handed to writes (the next page's place in the file) and bytes whose write has returned.
    private long _handedBytes;
    private long _flushedBytes;

    public PageStreamWriter(SlicedFileWriter file, Action<long, long>? written)
    {
        _file = file;
        _written = written;
        _buffer = (byte*)NativeMemory.AlignedAlloc(BufferBytes, StorageConstants.PageSize);
        _spare = (byte*)NativeMemory.AlignedAlloc(BufferBytes, StorageConstants.PageSize);
    }

    /// <summary>Pages handed out or appended so far, written or still in a buffer: the number the next page gets.</summary>
    public long PagesWritten => (_handedBytes + _filled) / StorageConstants.PageSize;

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
            StartWrite();
        byte* pages = _buffer + _filled;
        new Span<byte>(pages, bytes).Clear();
        _filled += bytes;
        return pages;
    }

    /// <summary>Appends <paramref name="length"/> bytes as they are (whole pages by the end).</summary>
    public void Append(byte* data, long length)
    {
        while (length > 0)
        {
            if (_filled == BufferBytes)
                StartWrite();
            int chunk = (int)Math.Min(length, BufferBytes - _filled);
            Buffer.MemoryCopy(data, _buffer + _filled, chunk, chunk);
            _filled += chunk;
            data += chunk;
            length -= chunk;
        }
    }

    /// <summary>Writes what the buffers hold and waits for it.</summary>
    public void Flush()
    {
        StartWrite();
        WaitForWrite();
    }

    public void Dispose()
    {
        if (_buffer is null)
            return;
        // A failed copy still waits for its last write: the buffer must outlive it.
        try
        {
            _writing?.Wait();
        }
        catch (AggregateException)
        {
            // the copy already failed, or fails at the write it waits for next; this one only frees the buffers
        }
        NativeMemory.AlignedFree(_buffer);
        NativeMemory.AlignedFree(_spare);
        _buffer = _spare = null;
    }

    /// <summary>Waits for the write in flight, then starts writing the full buffer and fills the other meanwhile.</summary>
    private void StartWrite()
    {
        if (_filled == 0)
            return;
        WaitForWrite();
        byte* filled = _buffer;
        _buffer = _spare;
        _spare = filled;
        nint full = (nint)_spare;
        int bytes = _filled;
        _writing = Task.Run(() =>
        {
            // The copying thread's I/O priority does not reach the pool's thread: lowered here for the write.
            using var lowIo = PalThreadIoPriority.Lower();
            _file.Write(new ReadOnlySpan<byte>((byte*)full, bytes));
        });
        _writingBytes = bytes;
        _handedBytes += bytes;
        _filled = 0;
    }

    private void WaitForWrite()
    {
        if (_writing is null)
            return;
        var writing = _writing;
        _writing = null;
        writing.GetAwaiter().GetResult();
        _flushedBytes += _writingBytes;
        _written?.Invoke(_writingBytes, _flushedBytes / StorageConstants.PageSize);
    }
}
