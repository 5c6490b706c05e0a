using System.Collections.Concurrent;
using System.Runtime.ExceptionServices;
using Cairn.Journal;
using Cairn.Pal;

namespace Cairn.Recovery;

/// <summary>
/// The first stage of replay, on a thread of its own: reads a journal front to back in large chunks and
/// validates every entry in them (header checksum, sizes, payload hash) while the caller applies the
/// entries validated before, so replay costs the larger of the two stages instead of their sum.
/// <see cref="Next(out byte*)"/> hands out the validations in journal order, each valid entry's bytes with it, up to
/// and including the first invalid one (the log's end as this file has it); the caller decides what ends
/// the log and stops the stage by <see cref="Stop"/> (or the next <see cref="Start"/>, or disposal).
/// </summary>
/// <remarks>
/// Valid entries stored uncompressed also have their page records and diff ops checked here
/// (<see cref="JournalEntryReader.CheckRecords"/>); a problem found is handed over with the entry, for the
/// caller to throw when, and only if, it applies that entry.
/// Chunks are cut exactly as <see cref="JournalReadWindow"/> cuts them (a chunk starts at an entry, is
/// <see cref="ChunkSize"/> bytes or the whole entry that does not fit, and ends at the file's end), so
/// every validation, including what it reports about a truncated entry, is what the window would give.
/// At most <see cref="Depth"/> chunks are read ahead: the reader waits for the caller to finish one
/// before it reads another (back-pressure), so memory stays bounded however slowly entries are applied.
/// A read failure on the reader's thread is rethrown by <see cref="Next(out byte*)"/> as it was thrown.
/// </remarks>
internal sealed unsafe class JournalReadAhead : IDisposable
{
    public const long ChunkSize = 4L << 20;
    private const int MaxReadSize = 1 << 30;

    /// <summary>Chunks in memory at once: the one being applied, the one being read, one ready between them.</summary>
    public const int Depth = 3;

    // Buffers no chunk holds; the reader takes one per chunk, the caller gives it back once it is applied.
    private BlockingCollection<JournalBuffer> _free = null!;
    // Chunks read and validated, in journal order, bounded by the buffers there are.
    private BlockingCollection<Chunk> _ready = null!;
    private readonly JournalBuffer[] _buffers;
    private CancellationTokenSource? _stop;
    private Thread? _thread;
    private Chunk? _current;
    private int _next;
    private long _bytesRead;

    /// <summary>One chunk: its buffer and the validations of the entries it holds (or the reader's failure).</summary>
    private sealed class Chunk(JournalBuffer? buffer, long start, List<ReadAheadEntry> entries, ExceptionDispatchInfo? failure)
    {
        public JournalBuffer? Buffer { get; } = buffer;

        public long Start { get; } = start;

        public List<ReadAheadEntry> Entries { get; } = entries;

        public ExceptionDispatchInfo? Failure { get; } = failure;
    }

    private readonly record struct ReadAheadEntry(JournalEntryValidation Validation, bool RecordsChecked, JournalCorruptionException? RecordProblem);

    public JournalReadAhead(int depth = Depth, long chunkSize = ChunkSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(depth, 2);
        ArgumentOutOfRangeException.ThrowIfLessThan(chunkSize, JournalEntryHeader.Alignment);
        _chunkSize = JournalEntryHeader.AlignUp(chunkSize);
        _buffers = new JournalBuffer[depth];
        for (int i = 0; i < depth; i++)
            _buffers[i] = new JournalBuffer(_chunkSize);
    }

    private readonly long _chunkSize;

    /// <summary>The file's size when <see cref="Start"/> began reading it.</summary>
    public long FileSize { get; private set; }

    /// <summary>Bytes read from files so far (applied or not), for the recovery summary.</summary>
    public long BytesRead => Interlocked.Read(ref _bytesRead);

    /// <summary>Chunks read ahead of the caller right now, at most <see cref="Depth"/> (for tests of the bound).</summary>
    internal int ChunksAhead => _ready.Count;

    /// <summary>Starts reading and validating <paramref name="file"/> from <paramref name="start"/> (stopping any earlier file first).</summary>
    public void Start(PalFile file, long start)
    {
        ArgumentNullException.ThrowIfNull(file);
        Stop();
        FileSize = file.GetSize();
        _free = new BlockingCollection<JournalBuffer>(new ConcurrentQueue<JournalBuffer>(_buffers));
        _ready = new BlockingCollection<Chunk>(new ConcurrentQueue<Chunk>(), _buffers.Length);
        _stop = new CancellationTokenSource();
        var token = _stop.Token;
        long fileSize = FileSize;
        _prefetchedUpTo = 0;
        _thread = new Thread(() => ReadAll(file, start, fileSize, token)) { IsBackground = true, Name = "Cairn journal read-ahead" };
        _thread.Start();
    }

    /// <summary>
    /// The next validation in journal order, with the entry's bytes (valid until the next call) when it is
    /// valid. After the first invalid one, every call returns that one again.
    /// </summary>
    public JournalEntryValidation Next(out byte* entry) => Next(out entry, out _, out _);

    /// <summary>
    /// <see cref="Next(out byte*)"/>, with whether the entry's records were checked ahead
    /// (<paramref name="recordsChecked"/>) and what that check found wrong, if anything.
    /// </summary>
    public JournalEntryValidation Next(out byte* entry, out bool recordsChecked, out JournalCorruptionException? recordProblem)
    {
        if (_stop is null)
            throw new InvalidOperationException("No journal is being read.");
        _current?.Failure?.Throw(); // a failed reader stays failed
        while (_current is null || _next >= _current.Entries.Count)
        {
            if (_current is { Entries.Count: > 0 } done && !done.Entries[^1].Validation.IsValid)
            {
                // The end stays the answer: its bytes are still in the buffer, which is kept for it.
                _next = done.Entries.Count - 1;
                break;
            }
            Release();
            _current = _ready.Take(); // the reader always ends with an invalid validation or a failure
            _next = 0;
            _current.Failure?.Throw();
        }
        var (validation, checkedAhead, problem) = _current.Entries[_next++];
        recordsChecked = checkedAhead;
        recordProblem = problem;
        entry = validation.IsValid ? _current.Buffer!.Pointer + (validation.Offset - _current.Start) : null;
        return validation;
    }

    /// <summary>Gives the current chunk's buffer back to the reader.</summary>
    private void Release()
    {
        if (_current?.Buffer is { } buffer)
            _free.Add(buffer);
        _current = null;
    }

    /// <summary>Stops the reader (if running) and waits for its thread; chunks read ahead are dropped.</summary>
    public void Stop()
    {
        if (_stop is null)
            return;
        _stop.Cancel();
        _thread!.Join();
        _stop.Dispose();
        _stop = null;
        _thread = null;
        _current = null;
        _free.Dispose();
        _ready.Dispose();
    }

    // Runs once per journal, so tiered compilation would leave its loop in unoptimized code for most of a replay.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveOptimization)]
    private void ReadAll(PalFile file, long start, long fileSize, CancellationToken token)
    {
        try
        {
            long offset = start;
            while (true)
            {
                var buffer = _free.Take(token);
                PrefetchBeyond(file, offset + _chunkSize, fileSize);
                var entries = new List<ReadAheadEntry>();
                long chunkStart = offset;
                long length = ReadChunk(file, buffer, offset, Math.Min(_chunkSize, Math.Max(0, fileSize - offset)));
                bool ended = false;
                while (!token.IsCancellationRequested)
                {
                    long available = chunkStart + length - offset;
                    if (available < Math.Min(JournalEntryHeader.Alignment, Math.Max(0, fileSize - offset)))
                        break; // the next header lies past this chunk: it starts the next one
                    byte* at = buffer.Pointer + (offset - chunkStart);
                    var validation = JournalEntryReader.Validate(at, available, offset);
                    if (validation.Problem == JournalEntryProblem.Truncated && validation.HeaderIsTrusted
                        && validation.Expected <= (ulong)Math.Max(0, fileSize - offset) && (long)validation.Expected > available)
                    {
                        if (offset != chunkStart)
                            break; // an entry larger than what is left of the chunk starts the next one
                        // Larger than a whole chunk: read it in one piece, as the window does.
                        length = ReadChunk(file, buffer, offset, Math.Min(Math.Max(_chunkSize, (long)validation.Expected), fileSize - offset));
                        continue;
                    }
                    if (!validation.IsValid)
                    {
                        entries.Add(new ReadAheadEntry(validation, false, null));
                        ended = true;
                        break;
                    }
                    bool check = (validation.Header.Flags & JournalEntryFlags.Compressed) == 0;
                    entries.Add(new ReadAheadEntry(validation, check, check ? JournalEntryReader.CheckRecords(at, validation) : null));
                    offset += validation.EntrySize;
                }
                _ready.Add(new Chunk(buffer, chunkStart, entries, null), token);
                if (ended)
                    return;
            }
        }
        catch (OperationCanceledException) when (token.IsCancellationRequested)
        {
            // Stopped by the caller: nothing more is wanted.
        }
        catch (Exception e)
        {
            // The failure takes the place of the chunk the caller waits for; a full queue means the caller
            // still has chunks to apply first, so it waits for room like any chunk (or for Stop).
            try
            {
                _ready.Add(new Chunk(null, 0, [], ExceptionDispatchInfo.Capture(e)), token);
            }
            catch (OperationCanceledException)
            {
            }
        }
    }

    // How far ahead of the reads the OS is asked to fetch, so a cold replay's reads find the bytes on their way.
    private long ReadAheadBytes => 8 * _chunkSize;
    private long _prefetchedUpTo;

    private void PrefetchBeyond(PalFile file, long position, long fileSize)
    {
        long target = Math.Min(position + ReadAheadBytes, fileSize);
        if (target - _prefetchedUpTo < ReadAheadBytes / 2)
            return; // ask in large steps, not once per chunk
        long from = Math.Max(position, _prefetchedUpTo);
        if (target > from)
            file.Prefetch(from, target - from);
        _prefetchedUpTo = target;
    }

    private long ReadChunk(PalFile file, JournalBuffer buffer, long offset, long length)
    {
        buffer.EnsureCapacity(Math.Max(length, JournalEntryHeader.Alignment));
        long read = 0;
        while (read < length)
        {
            int size = (int)Math.Min(length - read, MaxReadSize);
            int got = file.Read(new Span<byte>(buffer.Pointer + read, size), offset + read);
            read += got;
            if (got < size)
                break; // the file is shorter than it was (nothing else writes it during recovery, so: its end)
        }
        Interlocked.Add(ref _bytesRead, read);
        return read;
    }

    public void Dispose()
    {
        Stop();
        foreach (var buffer in _buffers)
            buffer.Dispose();
    }
}
