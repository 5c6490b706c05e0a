using System.Runtime.InteropServices;
using Cairn.Paging;

namespace Cairn.Journal;

/// <summary>
/// The 17 bytes before each page record's encoded bytes in a journal entry's payload (unaligned).
/// Layout in docs/on-disk-format.md ("Journal entries").
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct PageRecordHeader
{
    public const int Size = 17;

    /// <summary>
    /// The longest run a record can hold: its full bytes must fit <see cref="EncodedLength"/> (an int).
    /// 262,143 pages = 2 GiB − 8 KiB, i.e. an overflow value of up to 2 GiB − 8 KiB − 32 bytes.
    /// </summary>
    public const int MaxPageCount = int.MaxValue / StorageConstants.PageSize;

    /// <summary>Pages 0 and 1 hold the file header copies, which are never journaled.</summary>
    public const long FirstJournaledPage = 2;

    public long PageNumber;
    /// <summary>1, or the length of an overflow run.</summary>
    public int PageCount;
    public PageRecordEncoding Encoding;
    /// <summary>Bytes that follow this header.</summary>
    public int EncodedLength;
}
