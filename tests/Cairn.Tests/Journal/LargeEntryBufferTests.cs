using Cairn.Journal;
using Cairn.Paging;

namespace Cairn.Tests.Journal;

/// <summary>
/// The entry buffer of a large entry (issue 29, item 8): told the page bytes at <see cref="JournalEntryWriter.Begin"/>,
/// the writer sizes the buffer once, so adding a thousand pages of new values never moves it (each move copied what was
/// built and touched fresh memory); a buffer that must grow keeps exactly the bytes in use.
/// </summary>
public sealed unsafe class LargeEntryBufferTests
{
    [Fact]
    public void An_entry_told_its_page_bytes_is_built_without_moving_its_buffer()
    {
        const int Runs = 16, PagesPerRun = 64; // 16 overflow runs of 512 KiB: an 8 MiB entry
        var runs = Enumerable.Range(0, Runs).Select(i => RandomRun(i, PagesPerRun)).ToArray();
        using var writer = new JournalEntryWriter(new JournalWriterOptions { CompressionThreshold = JournalWriterOptions.CompressionDisabled });
        using var buffer = new JournalBuffer();

        writer.Begin(buffer, 7, Guid.NewGuid(), (long)Runs * PagesPerRun * StorageConstants.PageSize, Runs);
        byte* start = buffer.Pointer;
        for (int i = 0; i < Runs; i++)
            fixed (byte* run = runs[i])
                Assert.Equal(PageRecordEncoding.Full, writer.AddPage(100 + i * PagesPerRun, PagesPerRun, run, null));
        long size = writer.Finish(new RootRecord(10_000, 2, JournalTestEntries.SampleRoot), 0);

        Assert.True(start == buffer.Pointer, "the buffer moved while the entry was built");
        var entry = new ReadOnlySpan<byte>(buffer.Pointer, (int)size).ToArray();
        Assert.True(JournalTestEntries.Validate(entry).IsValid);
        using var reader = new JournalEntryReader();
        using var target = new MemoryTarget();
        Assert.Equal(Runs, JournalTestEntries.Apply(reader, entry, target));
        for (int i = 0; i < Runs; i++)
            Assert.Equal(runs[i], target.Bytes(100 + i * PagesPerRun));
    }

    [Fact]
    public void A_buffer_that_grows_keeps_the_bytes_in_use()
    {
        using var buffer = new JournalBuffer(4096);
        new Span<byte>(buffer.Pointer, 4096).Fill(0xAB);

        buffer.EnsureCapacity(1 << 20, keep: 100);

        Assert.True(buffer.Capacity >= 1 << 20);
        Assert.True(new ReadOnlySpan<byte>(buffer.Pointer, 100).IndexOfAnyExcept((byte)0xAB) < 0);
        Assert.True(new ReadOnlySpan<byte>(buffer.Pointer + 100, 4096 - 100).IndexOfAnyExcept((byte)0) < 0); // fresh, not copied
    }

    private static byte[] RandomRun(int seed, int pages)
    {
        var run = new byte[pages * StorageConstants.PageSize];
        new Random(seed).NextBytes(run);
        return run;
    }
}
