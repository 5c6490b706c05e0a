using System.Runtime.CompilerServices;
using Cairn.Paging;

namespace Cairn.Journal;

/// <summary>
/// Walks the page records of an uncompressed payload, checking each record's header against the
/// payload's bounds and the entry's header (page numbers below its high-water mark, known
/// encodings, full records of exactly the run's size) and that exactly the promised number of
/// records fills the payload. Diff ops are checked separately (<see cref="PageDiffDecoder"/>).
/// Throws <see cref="JournalCorruptionException"/>.
/// </summary>
internal unsafe ref struct PageRecordEnumerator
{
    private readonly byte* _payload;
    private readonly long _length;
    private readonly int _records;
    private readonly long _nextPageNumber;
    private readonly long _entryOffset;
    private readonly long _transactionId;
    private long _position;
    private int _index;

    public PageRecordEnumerator(byte* payload, long length, in JournalEntryHeader header, long entryOffset)
    {
        _payload = payload;
        _length = length;
        _records = header.PageCount;
        _nextPageNumber = header.Root.NextPageNumber;
        _entryOffset = entryOffset;
        _transactionId = header.TransactionId;
    }

    public PageRecord Current { get; private set; }

    // Called for every page record a replay checks and applies: optimized from its first call (see JournalEntryReader.Apply).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public bool MoveNext()
    {
        if (_index == _records)
        {
            if (_position != _length)
                throw Corrupt($"{_length - _position} payload bytes follow the last of its {_records} records");
            return false;
        }
        if (_length - _position < PageRecordHeader.Size)
            throw Corrupt($"record {_index} of {_records}: its header at payload byte {_position} passes the payload's end ({_length} bytes)");
        var header = Unsafe.ReadUnaligned<PageRecordHeader>(_payload + _position);
        if (header.PageCount < 1 || header.PageCount > PageRecordHeader.MaxPageCount)
            throw Corrupt($"record {_index}: page count {header.PageCount}");
        if (header.PageNumber < PageRecordHeader.FirstJournaledPage || header.PageNumber >= _nextPageNumber
            || header.PageCount > _nextPageNumber - header.PageNumber)
            throw Corrupt($"record {_index}: pages {header.PageNumber}+{header.PageCount} are outside [{PageRecordHeader.FirstJournaledPage}, {_nextPageNumber})");
        if (header.Encoding > PageRecordEncoding.NewPage)
            throw Corrupt($"record {_index} (page {header.PageNumber}): unknown encoding {(byte)header.Encoding}");
        long dataStart = _position + PageRecordHeader.Size;
        if (header.EncodedLength < 0 || header.EncodedLength > _length - dataStart)
            throw Corrupt($"record {_index} (page {header.PageNumber}): {header.EncodedLength} encoded bytes at payload byte {dataStart} pass the payload's end ({_length} bytes)");
        int runLength = header.PageCount * StorageConstants.PageSize;
        if (header.Encoding == PageRecordEncoding.Full && header.EncodedLength != runLength)
            throw Corrupt($"record {_index} (page {header.PageNumber}): a full record of {header.EncodedLength} bytes for {header.PageCount} pages");
        Current = new PageRecord(header.PageNumber, header.PageCount, header.Encoding, _payload + dataStart, header.EncodedLength, _position);
        _position = dataStart + header.EncodedLength;
        _index++;
        return true;
    }

    public JournalCorruptionException Corrupt(string problem) => new(_entryOffset, _transactionId, problem);
}
