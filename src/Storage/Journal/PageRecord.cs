using Cairn.Paging;

namespace Cairn.Journal;

/// <summary>One page record of a payload, as <see cref="PageRecordEnumerator"/> found it (its bounds checked).</summary>
internal readonly unsafe struct PageRecord(long pageNumber, int pageCount, PageRecordEncoding encoding, byte* data, int encodedLength, long payloadOffset)
{
    public long PageNumber { get; } = pageNumber;

    public int PageCount { get; } = pageCount;

    public PageRecordEncoding Encoding { get; } = encoding;

    /// <summary>The encoded bytes (full page bytes or diff ops).</summary>
    public byte* Data { get; } = data;

    public int EncodedLength { get; } = encodedLength;

    /// <summary>Where the record's header starts in the uncompressed payload.</summary>
    public long PayloadOffset { get; } = payloadOffset;

    public int Length => PageCount * StorageConstants.PageSize;
}
