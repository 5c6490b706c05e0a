using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using Cairn.Pal;

namespace Cairn.Backups;

/// <summary>
/// Reads a file's first bytes front to back in chunks with positioned reads, on a thread of its own, one chunk ahead of
/// the caller: while the caller writes a chunk, the next is read into the other of two page-aligned buffers. Reads,
/// not a mapping: a page the device cannot give back (EIO) or a file cut short under the copy is then a typed
/// exception naming the file and the offset (<see cref="DeviceIOException"/> or another <see cref="PalIOException"/>;
/// <see cref="StorageFormatException"/> for the cut), where an access to a mapping would fault the process (SIGBUS).
/// The second thread keeps the copy out of the page cache off the writes' path: it is done while the device takes the
/// previous chunk. Used where the target reads the bytes in this process (a stream); a directory target writes from a
/// mapping instead (<see cref="HotCopy"/>), which costs no copy at all.
/// </summary>
internal sealed unsafe class ReadAheadChunks : IDisposable
{
    private readonly PalFile _file;
    private readonly long _length;
    private readonly int _chunkSize;
    private readonly byte*[] _buffers = new byte*[2];
    private readonly int[] _lengths = new int[2];
    // Handoff, not locks: _free counts buffers the reader may fill (2 at first), _filled chunks the caller may take.
    // A buffer belongs to the reader between a _free wait and the _filled release, to the caller from its _filled
    // wait until its next Next (or Dispose) releases _free; _lengths[i] and _failure are written before a _filled
    // release and read after the matching wait.
    private readonly SemaphoreSlim _free = new(2);
    private readonly SemaphoreSlim _filled = new(0);
    private readonly Thread _reader;
    private ExceptionDispatchInfo? _failure;
    private volatile bool _stopping;
    private long _taken; // chunks handed to the caller (caller's thread only)
    private bool _holding; // the caller holds the buffer of chunk _taken - 1 (caller's thread only)

    /// <param name="file">Open for reading; stays open until this is disposed.</param>
    /// <param name="length">Bytes to read from offset 0.</param>
    /// <param name="chunkSize">Bytes per chunk, whole pages.</param>
    /// <param name="lowPriority">The reader thread at the lowest CPU and I/O priority, as the copy's own thread (<see cref="BackgroundCopyThread"/>).</param>
    public ReadAheadChunks(PalFile file, long length, int chunkSize, bool lowPriority)
    {
        _file = file;
        _length = length;
        _chunkSize = chunkSize;
        for (int i = 0; i < 2; i++)
            _buffers[i] = (byte*)NativeMemory.AlignedAlloc((nuint)chunkSize, Paging.StorageConstants.PageSize);
        _reader = new Thread(() => ReadAll(lowPriority)) { IsBackground = true, Name = "cairn-backup-read" };
        _reader.Start();
    }

    public long ChunkCount => (_length + _chunkSize - 1) / _chunkSize;

    /// <summary>
    /// The next chunk, held by the caller until the next call; empty after the last. Waits for the reader; throws what
    /// its read threw. Writable: the caller may rewrite it before writing it (the header pages).
    /// </summary>
    public Span<byte> Next()
    {
        if (_holding)
        {
            _holding = false;
            _free.Release();
        }
        if (_taken == ChunkCount)
            return [];
        _filled.Wait();
        _failure?.Throw();
        int index = (int)(_taken++ % 2);
        _holding = true;
        return new Span<byte>(_buffers[index], _lengths[index]);
    }

    private void ReadAll(bool lowPriority)
    {
        if (lowPriority)
            PalThreadCpuPriority.LowerForGood();
        using PalThreadIoPriority? lowIo = lowPriority ? PalThreadIoPriority.Lower() : null;
        try
        {
            for (long chunk = 0; chunk < ChunkCount; chunk++)
            {
                _free.Wait();
                if (_stopping)
                    return;
                long offset = chunk * _chunkSize;
                int length = (int)Math.Min(_chunkSize, _length - offset);
                // The chunk after this one is asked of the device now, so a file not in the page cache is read at the
                // device's queue depth rather than one chunk at a time (the open's sequential hint widens the window).
                long next = offset + length;
                if (next < _length)
                    _file.Prefetch(next, Math.Min(_chunkSize, _length - next));
                try
                {
                    ReadExactly(_file, new Span<byte>(_buffers[chunk % 2], length), offset);
                }
                catch (PalIOException)
                {
                    // A read reports the offset it started at: page by page names the page (or the error was not the pages').
                    ThrowIfUnreadable(_file, offset, length);
                    throw;
                }
                _lengths[chunk % 2] = length;
                _filled.Release();
            }
        }
        catch (Exception e)
        {
            _failure = ExceptionDispatchInfo.Capture(e);
            _filled.Release();
        }
    }

    /// <summary>Reads the range page by page; throws the typed exception of the first page that cannot be read.</summary>
    public static void ThrowIfUnreadable(PalFile file, long offset, int length)
    {
        var page = new byte[Paging.StorageConstants.PageSize];
        for (long at = offset; at < offset + length; at += page.Length)
            ReadExactly(file, page.AsSpan(0, (int)Math.Min(page.Length, offset + length - at)), at);
    }

    /// <summary>Fills <paramref name="buffer"/> from <paramref name="offset"/>; a file that ends first is <see cref="StorageFormatException"/> at its end.</summary>
    public static void ReadExactly(PalFile file, Span<byte> buffer, long offset)
    {
        int read = file.Read(buffer, offset);
        if (read != buffer.Length)
            throw new StorageFormatException(file.FilePath, offset + read,
                "the file ends here, before the pages the copy reads (was it cut short while the environment was open?)");
    }

    public void Dispose()
    {
        _stopping = true;
        _free.Release(2); // a reader waiting for a buffer wakes and stops
        _reader.Join();
        for (int i = 0; i < 2; i++)
            NativeMemory.AlignedFree(_buffers[i]);
        _free.Dispose();
        _filled.Dispose();
    }
}
