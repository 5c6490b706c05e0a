using Cairn.Hashing;
using Cairn.Paging;
using Cairn.Trees;

namespace Cairn.Journal;

/// <summary>
/// Builds one journal entry at the start of a caller's <see cref="JournalBuffer"/>:
/// <see cref="Begin"/>, <see cref="AddPage"/> for every modified page run, then <see cref="Finish"/>,
/// which compresses the payload if that pays, writes the header and hashes and pads the entry with
/// zeros to 4 KiB. Each page is stored in the smallest of its encodings. Reuse one writer and one
/// buffer: in steady state building an entry allocates no managed memory. Not thread-safe. If a call
/// throws, the entry is abandoned: <see cref="Cancel"/> before the next <see cref="Begin"/>.
/// </summary>
internal sealed unsafe class JournalEntryWriter : IDisposable
{
    private readonly JournalWriterOptions _options;
    private JournalBuffer? _compressed;
    private bool _disposed;
    private JournalBuffer? _output;
    private long _position;
    private long _transactionId;
    private Guid _environmentId;
    private int _records, _full, _diff, _newPage;
    private long _pageBytes;

    public JournalEntryWriter() : this(JournalWriterOptions.Default)
    {
    }

    public JournalEntryWriter(JournalWriterOptions options)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(options.CompressionThreshold);
        _options = options;
    }

    public JournalWriterOptions Options => _options;

    public bool IsBuilding => _output is not null;

    /// <summary>The last finished entry.</summary>
    public JournalEntryStats LastEntry { get; private set; }

    /// <summary>
    /// Starts an entry at the start of <paramref name="output"/>. <paramref name="pageBytes"/>: the bytes of the page runs
    /// that will be added, if known; the buffer is grown for them at once (their records as full images), not doubling
    /// record by record, each growth copying what was built and touching fresh memory.
    /// </summary>
    public void Begin(JournalBuffer output, long transactionId, Guid environmentId, long pageBytes = 0, int runs = 0)
    {
        ArgumentNullException.ThrowIfNull(output);
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_output is not null)
            throw new InvalidOperationException("An entry is already being built: Finish or Cancel it first.");
        output.EnsureCapacity(JournalEntryHeader.AlignUp(JournalEntryHeader.Size + pageBytes + (long)runs * PageRecordHeader.Size), keep: 0);
        _output = output;
        _position = JournalEntryHeader.Size;
        _transactionId = transactionId;
        _environmentId = environmentId;
        _records = _full = _diff = _newPage = 0;
        _pageBytes = 0;
    }

    /// <summary>
    /// Adds the page run at <paramref name="pageNumber"/> (<paramref name="pageCount"/> pages: 1, or
    /// an overflow run) as it is now, <paramref name="current"/>. <paramref name="previous"/> is the
    /// run as it was before this transaction, or null for a run this transaction allocated; when
    /// given it must be what the data file will hold at replay (some version of the run at or after
    /// it), which the diff is against. <paramref name="changed"/> (null: unknown): the byte ranges outside which
    /// <paramref name="current"/> equals <paramref name="previous"/>, where the diff looks for changes
    /// (<see cref="DirtyRangeChecks"/> verifies that claim when on). Returns the encoding chosen.
    /// </summary>
    public PageRecordEncoding AddPage(long pageNumber, int pageCount, byte* current, byte* previous, DirtyRanges* changed = null)
    {
        var output = _output ?? throw new InvalidOperationException("Begin an entry first.");
        ArgumentOutOfRangeException.ThrowIfLessThan(pageNumber, PageRecordHeader.FirstJournaledPage);
        ArgumentOutOfRangeException.ThrowIfLessThan(pageCount, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(pageCount, PageRecordHeader.MaxPageCount);
        ArgumentNullException.ThrowIfNull(current);
        int length = pageCount * StorageConstants.PageSize;
        long dataStart = _position + PageRecordHeader.Size;
        output.EnsureCapacity(dataStart + length, keep: _position);

        var encoding = PageRecordEncoding.Full;
        int encodedLength = length;
        if (previous != null)
        {
            if (changed != null && DirtyRangeChecks.Enabled)
                DirtyRangeChecks.Verify(pageNumber, current, previous, length, changed);
            // Ties go to the full image, which does not depend on the base.
            int diff = PageDiffEncoder.Encode(current, previous, length, output.Pointer + dataStart, length - 1, changed);
            if (diff >= 0)
            {
                encoding = PageRecordEncoding.Diff;
                encodedLength = diff;
            }
        }
        // Against zeros, written after the diff (if any) and kept if no larger: it does not depend on the base.
        long zeroStart = encoding == PageRecordEncoding.Diff ? dataStart + encodedLength : dataStart;
        int zeroLimit = encoding == PageRecordEncoding.Diff ? encodedLength : length - 1;
        output.EnsureCapacity(zeroStart + zeroLimit, keep: zeroStart);
        byte* data = output.Pointer + dataStart;
        int zeroBased = PageDiffEncoder.Encode(current, null, length, output.Pointer + zeroStart, zeroLimit);
        if (zeroBased >= 0)
        {
            if (zeroStart != dataStart)
                Buffer.MemoryCopy(output.Pointer + zeroStart, data, zeroBased, zeroBased);
            encoding = PageRecordEncoding.NewPage;
            encodedLength = zeroBased;
        }
        else if (encoding == PageRecordEncoding.Full)
        {
            Buffer.MemoryCopy(current, data, length, length);
        }

        var header = (PageRecordHeader*)(output.Pointer + _position);
        header->PageNumber = pageNumber;
        header->PageCount = pageCount;
        header->Encoding = encoding;
        header->EncodedLength = encodedLength;
        _position = dataStart + encodedLength;
        _records++;
        _pageBytes += length;
        switch (encoding)
        {
            case PageRecordEncoding.Full: _full++; break;
            case PageRecordEncoding.Diff: _diff++; break;
            default: _newPage++; break;
        }
        return encoding;
    }

    /// <summary>
    /// Completes the entry with the environment's state after the transaction and returns its size
    /// (a multiple of 4096 bytes, starting at the buffer's <see cref="JournalBuffer.Pointer"/>).
    /// </summary>
    public long Finish(in RootRecord root, long timestampTicks)
    {
        var output = _output ?? throw new InvalidOperationException("Begin an entry first.");
        long uncompressed = _position - JournalEntryHeader.Size;
        long stored = uncompressed;
        var flags = JournalEntryFlags.None;
        if (uncompressed >= _options.CompressionThreshold && uncompressed <= JournalCompression.MaxInputLength
            && TryCompress(output, (int)uncompressed, out int compressed))
        {
            stored = compressed;
            flags = JournalEntryFlags.Compressed;
        }

        long end = JournalEntryHeader.Size + stored;
        long entrySize = JournalEntryHeader.AlignUp(end);
        output.EnsureCapacity(entrySize, keep: end);
        byte* entry = output.Pointer;
        new Span<byte>(entry + end, (int)(entrySize - end)).Clear();

        var header = (JournalEntryHeader*)entry;
        *header = default;
        header->Magic = JournalEntryHeader.MagicValue;
        header->FormatVersion = JournalEntryHeader.CurrentFormatVersion;
        header->Flags = flags;
        header->TransactionId = _transactionId;
        header->EnvironmentId = _environmentId;
        header->PageCount = _records;
        header->UncompressedPayloadSize = uncompressed;
        header->PayloadSize = stored;
        header->PayloadHash = Checksums.Compute(entry + JournalEntryHeader.Size, stored, unchecked((ulong)_transactionId));
        header->Root = root;
        header->Timestamp = timestampTicks;
        header->HeaderChecksum = Checksums.Compute(entry, JournalEntryHeader.ChecksummedLength, unchecked((ulong)_transactionId));

        LastEntry = new JournalEntryStats(_records, _pageBytes, _full, _diff, _newPage, uncompressed, stored, entrySize,
            flags == JournalEntryFlags.Compressed);
        _output = null;
        return entrySize;
    }

    /// <summary>Abandons the entry being built (the transaction did not commit).</summary>
    public void Cancel() => _output = null;

    /// <summary>Compresses the payload in place if that makes the aligned entry smaller.</summary>
    private bool TryCompress(JournalBuffer output, int length, out int compressed)
    {
        long bound = JournalCompression.MaxCompressedLength(length);
        _compressed ??= new JournalBuffer(Math.Max(bound, JournalBuffer.Alignment));
        _compressed.EnsureCapacity(bound);
        // Only worth it if it saves at least one aligned block.
        long target = JournalEntryHeader.AlignUp(JournalEntryHeader.Size + (long)length) - JournalEntryHeader.Alignment - JournalEntryHeader.Size;
        if (target <= 0)
        {
            compressed = 0;
            return false;
        }
        var source = new ReadOnlySpan<byte>(output.Pointer + JournalEntryHeader.Size, length);
        var destination = new Span<byte>(_compressed.Pointer, (int)Math.Min(bound, int.MaxValue));
        if (!JournalCompression.TryCompress(source, destination, out compressed)
            || compressed > target)
            return false;
        Buffer.MemoryCopy(_compressed.Pointer, output.Pointer + JournalEntryHeader.Size, compressed, compressed);
        return true;
    }

    public void Dispose()
    {
        _disposed = true;
        _compressed?.Dispose();
        _compressed = null;
    }
}
