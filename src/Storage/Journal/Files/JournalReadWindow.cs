using Cairn.Journal;
using Cairn.Pal;

namespace Cairn.Journal.Files;

/// <summary>
/// Reads a journal front to back through one reusable buffer, a few MiB at a time (the file is opened
/// with the sequential hint, so the kernel reads ahead), and hands out pointers to whole entries:
/// an entry larger than the window is read in one piece. By default pointers stay valid until the next
/// read; with an <see cref="IReadChunkSource"/> every chunk is read into a buffer the source hands out,
/// so its entries stay valid as long as the source's owner keeps that buffer (a replay hands them to another thread).
/// </summary>
internal sealed unsafe class JournalReadWindow : IDisposable
{
    private const long ChunkSize = 4L << 20;
    private const int MaxReadSize = 1 << 30;

    // How far ahead of the reads the OS is asked to fetch: decoding a chunk takes several times longer
    // than reading it from disk, so a few chunks in flight keep a cold replay from waiting on each read.
    private const long ReadAhead = 8 * ChunkSize;

    private readonly bool _readAhead;
    private readonly long _chunkSize = ChunkSize;
    private long _prefetchedUpTo;

    // The buffer of the current chunk: this window's own, or the last one the source handed out.
    private JournalBuffer _buffer;
    // Null: the window reads every chunk into its own buffer, which it owns.
    private readonly IReadChunkSource? _source;
    private PalFile? _file;
    private long _start;
    private long _length;

    public long FileSize { get; private set; }

    /// <summary>Bytes read from files so far, for the recovery summary.</summary>
    public long BytesRead { get; private set; }

    /// <param name="readAhead">
    /// Whether to ask the OS to read ahead of this window (the replay, which reads whole journals);
    /// not for scans that look at the first entry of a file or skip through its tail.
    /// </param>
    public JournalReadWindow(bool readAhead)
    {
        _readAhead = readAhead;
        _buffer = new JournalBuffer(ChunkSize);
    }

    /// <summary>
    /// A window that reads each chunk (<paramref name="chunkBytes"/>, or a whole entry if larger) into a buffer from
    /// <paramref name="source"/>, which owns them.
    /// </summary>
    public JournalReadWindow(bool readAhead, IReadChunkSource source, long chunkBytes = ChunkSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(chunkBytes, JournalEntryHeader.Alignment);
        _readAhead = readAhead;
        _source = source;
        _chunkSize = chunkBytes;
        _buffer = source.Next(chunkBytes);
    }

    /// <summary>The size of the chunks this window reads (an entry larger than one is read whole).</summary>
    public const long ChunkBytes = ChunkSize;

    public void Reset(PalFile file)
    {
        _file = file;
        FileSize = file.GetSize();
        _start = 0;
        _length = 0;
        _prefetchedUpTo = 0;
    }

    /// <summary>Forgets the current chunk: the next read reads anew (with a source, into the buffer it hands out then).</summary>
    public void Forget()
    {
        _start = 0;
        _length = 0;
    }

    /// <summary>
    /// The bytes at <paramref name="offset"/>, with <paramref name="available"/> of them readable: at
    /// least <paramref name="wanted"/>, or everything up to the end of the file if that comes first.
    /// Valid until the next call.
    /// </summary>
    public byte* At(long offset, long wanted, out long available)
    {
        var file = _file ?? throw new InvalidOperationException("No journal is open.");
        long toEnd = Math.Max(0, FileSize - offset);
        long need = Math.Min(wanted, toEnd);
        if (offset >= _start && offset + need <= _start + _length)
        {
            available = _start + _length - offset;
            return _buffer.Pointer + (offset - _start);
        }
        long length = Math.Min(Math.Max(_chunkSize, need), toEnd);
        if (_readAhead)
            PrefetchBeyond(file, offset + length);
        if (_source is not null)
            _buffer = _source.Next(length);
        // Nothing of the old chunk is kept: whatever is read next replaces it.
        _buffer.EnsureCapacity(Math.Max(length, JournalEntryHeader.Alignment), keep: 0);
        long read = 0;
        while (read < length)
        {
            int chunk = (int)Math.Min(length - read, MaxReadSize);
            int got = file.Read(new Span<byte>(_buffer.Pointer + read, chunk), offset + read);
            read += got;
            if (got < chunk)
                break; // the file is shorter than it was (nothing else writes it during recovery, so: its end)
        }
        BytesRead += read;
        _start = offset;
        _length = read;
        available = read;
        return _buffer.Pointer;
    }

    private void PrefetchBeyond(PalFile file, long position)
    {
        long target = Math.Min(position + ReadAhead, FileSize);
        if (target - _prefetchedUpTo < ReadAhead / 2)
            return; // ask in large steps, not once per chunk
        long from = Math.Max(position, _prefetchedUpTo);
        if (target > from)
            file.Prefetch(from, target - from);
        _prefetchedUpTo = target;
    }

    /// <summary>Validates the entry at <paramref name="offset"/>, reading all of it when its header says it is longer than the window.</summary>
    public JournalEntryValidation Validate(long offset, out byte* entry)
    {
        entry = At(offset, JournalEntryHeader.Alignment, out long available);
        var validation = JournalEntryReader.Validate(entry, available, offset);
        if (validation.Problem == JournalEntryProblem.Truncated && validation.HeaderIsTrusted
            && validation.Expected <= (ulong)Math.Max(0, FileSize - offset) && (long)validation.Expected > available)
        {
            entry = At(offset, (long)validation.Expected, out available);
            validation = JournalEntryReader.Validate(entry, available, offset);
        }
        return validation;
    }

    public void Dispose()
    {
        if (_source is null)
            _buffer.Dispose();
    }
}
