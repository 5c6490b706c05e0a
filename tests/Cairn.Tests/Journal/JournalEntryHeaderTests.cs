using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Cairn.Journal;
using Cairn.Paging;
using Cairn.Tests.Hashing;

namespace Cairn.Tests.Journal;

/// <summary>The entry header and page record header have exactly the documented layout (docs/on-disk-format.md).</summary>
public class JournalEntryHeaderTests
{
    [Fact]
    public void Header_is_192_bytes_with_the_documented_offsets()
    {
        Assert.Equal(JournalEntryHeader.Size, Unsafe.SizeOf<JournalEntryHeader>());
        Assert.Equal(192, JournalEntryHeader.Size);
        Assert.Equal(184, JournalEntryHeader.ChecksummedLength);
        Assert.Equal(TreeState.Size, Unsafe.SizeOf<TreeState>());
        var expected = new (string Field, int Offset)[]
        {
            (nameof(JournalEntryHeader.Magic), 0),
            (nameof(JournalEntryHeader.FormatVersion), 8),
            (nameof(JournalEntryHeader.Flags), 12),
            (nameof(JournalEntryHeader.TransactionId), 16),
            (nameof(JournalEntryHeader.EnvironmentId), 24),
            (nameof(JournalEntryHeader.PageCount), 40),
            (nameof(JournalEntryHeader.Reserved0), 44),
            (nameof(JournalEntryHeader.UncompressedPayloadSize), 48),
            (nameof(JournalEntryHeader.PayloadSize), 56),
            (nameof(JournalEntryHeader.PayloadHash), 64),
            (nameof(JournalEntryHeader.Root), 72),
            (nameof(JournalEntryHeader.Timestamp), 136),
            (nameof(JournalEntryHeader.WrittenBy), 144),
            (nameof(JournalEntryHeader.OffsetInWrite), 160),
            (nameof(JournalEntryHeader.Reserved3), 168),
            (nameof(JournalEntryHeader.Reserved4), 176),
            (nameof(JournalEntryHeader.HeaderChecksum), 184),
        };
        foreach (var (field, offset) in expected)
            Assert.True(offset == (int)Marshal.OffsetOf<JournalEntryHeader>(field), $"{field} is at {Marshal.OffsetOf<JournalEntryHeader>(field)}, not {offset}");
    }

    [Fact]
    public void Root_record_is_64_bytes_with_the_documented_offsets()
    {
        Assert.Equal(RootRecord.Size, Unsafe.SizeOf<RootRecord>());
        Assert.Equal(64, RootRecord.Size);
        Assert.Equal(0, (int)Marshal.OffsetOf<RootRecord>(nameof(RootRecord.NextPageNumber)));
        Assert.Equal(8, (int)Marshal.OffsetOf<RootRecord>(nameof(RootRecord.FreeSpaceDirectoryPage)));
        Assert.Equal(16, (int)Marshal.OffsetOf<RootRecord>(nameof(RootRecord.RootTree)));
    }

    [Fact]
    public void Magic_spells_CAIRNJE1()
    {
        var bytes = BitConverter.GetBytes(JournalEntryHeader.MagicValue);
        Assert.Equal("CAIRNJE1", Encoding.ASCII.GetString(bytes));
    }

    [Fact]
    public void Page_record_header_is_17_packed_bytes()
    {
        Assert.Equal(PageRecordHeader.Size, Unsafe.SizeOf<PageRecordHeader>());
        Assert.Equal(17, PageRecordHeader.Size);
        Assert.Equal(0, (int)Marshal.OffsetOf<PageRecordHeader>(nameof(PageRecordHeader.PageNumber)));
        Assert.Equal(8, (int)Marshal.OffsetOf<PageRecordHeader>(nameof(PageRecordHeader.PageCount)));
        Assert.Equal(12, (int)Marshal.OffsetOf<PageRecordHeader>(nameof(PageRecordHeader.Encoding)));
        Assert.Equal(13, (int)Marshal.OffsetOf<PageRecordHeader>(nameof(PageRecordHeader.EncodedLength)));
        Assert.Equal(262_143, PageRecordHeader.MaxPageCount);
    }

    [Theory]
    [InlineData(0, 4096)]
    [InlineData(1, 4096)]
    [InlineData(4096 - 192, 4096)]
    [InlineData(4096 - 191, 8192)]
    [InlineData(100_000, 102_400)]
    public void Entry_size_is_header_plus_payload_rounded_up_to_4_KiB(long payload, long size)
        => Assert.Equal(size, JournalEntryHeader.EntrySize(payload));

    [Fact]
    public unsafe void A_stamped_entry_still_validates_and_reads_back_who_wrote_it_and_where_its_write_began()
    {
        using var entries = new JournalEntryFactory(Guid.NewGuid());
        var entry = entries.Build(7, (100, 1));
        var root = Guid.NewGuid();

        fixed (byte* p = entry)
            JournalEntryHeader.StampWrite(p, root, 3 * JournalEntryHeader.Alignment);

        var validation = JournalTestEntries.Validate(entry);
        Assert.True(validation.IsValid, validation.ToString());
        Assert.Equal(root, validation.Header.WrittenBy);
        Assert.Equal(3 * JournalEntryHeader.Alignment, validation.Header.OffsetInWrite);
        Assert.Equal(entries.EnvironmentId, validation.Header.EnvironmentId);
        Assert.Equal(7, validation.Header.TransactionId);
    }

    [Fact]
    public void A_header_changed_without_StampWrite_fails_its_checksum()
    {
        using var entries = new JournalEntryFactory(Guid.NewGuid());
        var entry = entries.Build(7, (100, 1));

        BitConverter.TryWriteBytes(entry.AsSpan(160, 8), 4096L); // OffsetInWrite, not sealed again

        Assert.Equal(JournalEntryProblem.HeaderChecksumMismatch, JournalTestEntries.Validate(entry).Problem);
    }

    [Fact]
    public void A_written_header_has_its_fields_at_their_offsets_and_checksums_as_documented()
    {
        using var writer = new JournalEntryWriter();
        using var buffer = new JournalBuffer();
        var environment = Guid.NewGuid();
        var page = new byte[8192];
        page[100] = 7;
        var entry = JournalTestEntries.Build(writer, buffer, 0x1122334455667788, environment,
            [new PageChange(5, 1, null, page)], nextPageNumber: 99, timestamp: 0x0102030405060708);

        Assert.Equal("CAIRNJE1", Encoding.ASCII.GetString(entry, 0, 8));
        Assert.Equal(2, BitConverter.ToInt32(entry, 8));
        Assert.Equal(0u, BitConverter.ToUInt32(entry, 12));
        Assert.Equal(0x1122334455667788, BitConverter.ToInt64(entry, 16));
        Assert.Equal(environment, new Guid(entry.AsSpan(24, 16)));
        Assert.Equal(1, BitConverter.ToInt32(entry, 40));
        long payload = BitConverter.ToInt64(entry, 56);
        Assert.Equal(payload, BitConverter.ToInt64(entry, 48));
        Assert.Equal(ReferenceXxHash.Xxh3(entry.AsSpan(192, (int)payload), 0x1122334455667788), BitConverter.ToUInt64(entry, 64));
        Assert.Equal(99, BitConverter.ToInt64(entry, 72));
        Assert.Equal(2, BitConverter.ToInt64(entry, 80));
        Assert.Equal(JournalTestEntries.SampleRoot.RootPage, BitConverter.ToInt64(entry, 88));
        Assert.Equal(JournalTestEntries.SampleRoot.Depth, BitConverter.ToInt32(entry, 88 + 40));
        Assert.Equal(0x0102030405060708, BitConverter.ToInt64(entry, 136));
        Assert.True(entry.AsSpan(144, 40).IndexOfAnyExcept((byte)0) < 0);
        Assert.Equal(ReferenceXxHash.Xxh3(entry.AsSpan(0, 184), 0x1122334455667788), BitConverter.ToUInt64(entry, 184));
        Assert.Equal(4096, entry.Length);
        Assert.True(entry.AsSpan(192 + (int)payload).IndexOfAnyExcept((byte)0) < 0, "padding is zeros");

        // The one record: page 5, one page, against zeros: a single literal op of one byte at 100.
        Assert.Equal(5, BitConverter.ToInt64(entry, 192));
        Assert.Equal(1, BitConverter.ToInt32(entry, 200));
        Assert.Equal((byte)PageRecordEncoding.NewPage, entry[204]);
        Assert.Equal(3, BitConverter.ToInt32(entry, 205));
        Assert.Equal(new byte[] { 100, 1 << 1, 7 }, entry.AsSpan(209, 3).ToArray());
        Assert.Equal(17 + 3, payload);
    }
}
