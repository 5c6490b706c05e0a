using Cairn.Shipping;
using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

public class ShippedEntryStreamTests
{
    private static List<ShippedJournalEntry> SomeEntries(TestDirectory dir, int count)
    {
        using var env = StorageEnvironment.Open(new StorageOptions(dir.File("primary")));
        long before = env.LastCommittedTransactionId;
        ShippingFixtures.Commit(env, 0, count);
        return env.ReadJournalEntries(before).ToList();
    }

    [Fact]
    public void Entries_written_to_a_stream_read_back_the_same()
    {
        using var dir = new TestDirectory("ship-stream");
        var entries = SomeEntries(dir, 5);
        var stream = new MemoryStream();
        Assert.Equal(5, ShippedEntryStream.Write(stream, entries));
        stream.Position = 0;
        var read = ShippedEntryStream.Read(stream).ToList();
        Assert.Equal(entries.Select(e => e.TransactionId), read.Select(e => e.TransactionId));
        Assert.Equal(entries.Select(e => e.EnvironmentId), read.Select(e => e.EnvironmentId));
        for (int i = 0; i < entries.Count; i++)
            Assert.True(entries[i].Data.Span.SequenceEqual(read[i].Data.Span));
    }

    [Fact]
    public void An_empty_stream_holds_no_entries()
    {
        Assert.Empty(ShippedEntryStream.Read(new MemoryStream()));
    }

    /// <summary>A byte flipped anywhere (a frame, an entry's header, its payload) is refused, naming the frame's offset.</summary>
    [Theory]
    [InlineData(3)]            // frame magic
    [InlineData(20)]           // frame transaction id (frame checksum)
    [InlineData(64 + 40)]      // entry header
    [InlineData(64 + 300)]     // entry payload
    public void A_flipped_byte_is_refused(int position)
    {
        using var dir = new TestDirectory("ship-flip");
        var entries = SomeEntries(dir, 2);
        var stream = new MemoryStream();
        ShippedEntryStream.Write(stream, entries);
        var bytes = stream.ToArray();
        int second = 64 + entries[0].Data.Length;
        bytes[second + position] ^= 0x40;
        var read = ShippedEntryStream.Read(new MemoryStream(bytes)).GetEnumerator();
        Assert.True(read.MoveNext()); // the first entry is intact
        var e = Assert.Throws<ShippedEntryDamagedException>(() => read.MoveNext());
        Assert.Contains($"offset {second}", e.Message);
    }

    [Theory]
    [InlineData(10)]     // inside the frame
    [InlineData(64 + 100)] // inside the entry
    public void A_stream_cut_short_is_refused(int keep)
    {
        using var dir = new TestDirectory("ship-cut");
        var entries = SomeEntries(dir, 1);
        var stream = new MemoryStream();
        ShippedEntryStream.Write(stream, entries);
        var bytes = stream.ToArray()[..keep];
        var e = Assert.Throws<ShippedEntryDamagedException>(() => ShippedEntryStream.Read(new MemoryStream(bytes)).ToList());
        Assert.Contains("cut short", e.Message);
    }

    /// <summary>The byte table is checked by OnDiskLayoutTests; here what it cannot say: the magic's letters and what the checksum covers.</summary>
    [Fact]
    public void The_frame_magic_spells_CAIRNSF1_and_its_checksum_covers_every_byte_before_it()
    {
        Assert.Equal("CAIRNSF1", System.Text.Encoding.ASCII.GetString(BitConverter.GetBytes(ShippedEntryFrame.MagicValue)));
        Assert.Equal(ShippedEntryFrame.ChecksummedLength,
            (int)System.Runtime.InteropServices.Marshal.OffsetOf<ShippedEntryFrame>(nameof(ShippedEntryFrame.Checksum)));
    }
}
