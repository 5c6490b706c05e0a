using Cairn.Journal;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Journal;

/// <summary>
/// decode(encode(x)) == x for whole entries: random page runs (leaves, overflow runs of 2–5 pages,
/// zero pages, random pages, new pages without a previous version) under random modifications,
/// with and without compression; each record is stored in its smallest encoding; and replaying a
/// chain of entries over any later (or torn) version of a page converges to the last version.
/// </summary>
public unsafe class JournalRoundTripTests
{
    private static readonly Gen<PageCase[]> Transaction =
        Gen.Sized(size => Gen.Choose(0, Math.Clamp(size / 4, 1, 16)).SelectMany(n => Gen.ArrayOf(PageCase.Gen, n)));

    /// <summary>Drops halves, quarters, ... then single pages.</summary>
    private static IEnumerable<PageCase[]> Shrink(PageCase[] cases)
    {
        for (int chunk = cases.Length / 2; chunk >= 1; chunk /= 2)
            for (int start = 0; start + chunk <= cases.Length; start += chunk)
                yield return [.. cases[..start], .. cases[(start + chunk)..]];
    }

    [Fact]
    public void Entries_round_trip_exactly_uncompressed() => RoundTripProperty(JournalWriterOptions.CompressionDisabled, 150);

    [Fact]
    public void Entries_round_trip_exactly_when_compression_is_always_tried() => RoundTripProperty(0, 100);

    private static void RoundTripProperty(int threshold, int tests)
    {
        using var writer = new JournalEntryWriter(new JournalWriterOptions { CompressionThreshold = threshold });
        using var buffer = new JournalBuffer(4096); // small on purpose: growth is exercised
        using var reader = new JournalEntryReader();
        long transactionId = 1;
        var property = Prop.ForAll(Arb.From(Transaction, Shrink), (PageCase[] cases) =>
        {
            var changes = PageCase.MaterializeAll(cases);
            var environment = Guid.NewGuid();
            long id = transactionId++ * 0x1_0000_0001;
            long next = PageCase.NextPageNumber(cases.Length);
            var entry = JournalTestEntries.Build(writer, buffer, id, environment, changes, next, timestamp: id ^ 77);

            var validation = JournalTestEntries.Validate(entry, offset: 4096 * 3);
            Assert.True(validation.IsValid, validation.ToString());
            var header = validation.Header;
            Assert.Equal(4096 * 3, validation.Offset);
            Assert.Equal(entry.Length, validation.EntrySize);
            Assert.Equal(0, entry.Length % 4096);
            Assert.Equal(id, header.TransactionId);
            Assert.Equal(environment, header.EnvironmentId);
            Assert.Equal(changes.Length, header.PageCount);
            Assert.Equal(next, header.Root.NextPageNumber);
            Assert.Equal(2, header.Root.FreeSpaceDirectoryPage);
            Assert.Equal(JournalTestEntries.SampleRoot, header.Root.RootTree);
            Assert.Equal(id ^ 77, header.Timestamp);
            Assert.Equal(writer.LastEntry.Compressed, (header.Flags & JournalEntryFlags.Compressed) != 0);
            Assert.True(entry.AsSpan(JournalEntryHeader.Size + (int)header.PayloadSize).IndexOfAnyExcept((byte)0) < 0, "padding is zeros");
            if (header.Flags.HasFlag(JournalEntryFlags.Compressed))
                Assert.True(JournalEntryHeader.EntrySize(header.PayloadSize) < JournalEntryHeader.EntrySize(header.UncompressedPayloadSize));

            using var target = new MemoryTarget();
            foreach (var change in changes.Where(c => c.Previous is not null))
                target.Set(change.PageNumber, change.Previous);
            Assert.Equal(changes.Length, JournalTestEntries.Apply(reader, entry, target));
            foreach (var change in changes)
                Assert.True(change.Current.AsSpan().SequenceEqual(target.Bytes(change.PageNumber)), $"{change} differs after replay");
            Assert.True(target.GuardsIntact);
            CheckSmallestEncodings(reader, entry, changes, target.Requests);
        });
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(tests).WithEndSize(64), property);
    }

    /// <summary>Each record is no larger than any encoding that could have been chosen, and only diffs ask for the page's content.</summary>
    private static void CheckSmallestEncodings(JournalEntryReader reader, byte[] entry, PageChange[] changes,
        List<(long PageNumber, int PageCount, bool NeedsContent)> requests)
    {
        fixed (byte* e = entry)
        {
            var validation = JournalEntryReader.Validate(e, entry.Length, 0);
            byte* payload = reader.GetPayload(e, validation, out long length);
            var records = new PageRecordEnumerator(payload, length, validation.Header, 0);
            int i = 0;
            while (records.MoveNext())
            {
                var record = records.Current;
                var change = changes[i];
                Assert.Equal(change.PageNumber, record.PageNumber);
                Assert.Equal(change.PageCount, record.PageCount);
                Assert.Equal(record.Encoding == PageRecordEncoding.Diff, requests[i].NeedsContent);
                if (change.Previous is null)
                    Assert.NotEqual(PageRecordEncoding.Diff, record.Encoding);
                var scratch = new byte[change.Current.Length * 2];
                fixed (byte* c = change.Current)
                fixed (byte* p = change.Previous)
                fixed (byte* s = scratch)
                {
                    int best = change.Current.Length;
                    best = Math.Min(best, Size(PageDiffEncoder.Encode(c, null, change.Current.Length, s, scratch.Length)));
                    if (p != null)
                        best = Math.Min(best, Size(PageDiffEncoder.Encode(c, p, change.Current.Length, s, scratch.Length)));
                    Assert.Equal(best, record.EncodedLength);
                }
                i++;
            }
            Assert.Equal(changes.Length, i);
        }
        static int Size(int n) => n < 0 ? int.MaxValue : n;
    }

    /// <summary>
    /// Recovery replays every entry after the data file's last synced transaction, but the flusher may
    /// have written later versions of a page (even torn: some sectors old, some new) before the crash.
    /// Because diff ops only set bytes, replaying the whole chain over any mix of the versions it
    /// spans yields the last version.
    /// </summary>
    [Fact]
    public void Replaying_a_chain_over_any_later_or_torn_version_converges_to_the_last_version()
    {
        using var writer = new JournalEntryWriter();
        using var buffer = new JournalBuffer();
        using var reader = new JournalEntryReader();
        var chain = Gen.Choose(0, int.MaxValue).SelectMany(seed => Gen.Choose(1, 6).SelectMany(length =>
            Gen.ArrayOf(Gen.Elements(Enum.GetValues<ChangeKind>()), length).Select(kinds => (seed, kinds))));
        var property = Prop.ForAll(Arb.From(chain), ((int Seed, ChangeKind[] Kinds) c) =>
        {
            var random = new Random(c.Seed);
            var versions = new List<byte[]> { PageImages.Base(BaseKind.Leaf, 1, 12, random) };
            foreach (var kind in c.Kinds)
                versions.Add(PageImages.Changed(versions[^1], kind, random.Next(1, 50), random));
            var entries = new List<byte[]>();
            for (int v = 1; v < versions.Count; v++)
                entries.Add(JournalTestEntries.Build(writer, buffer, v, Guid.Empty, [new PageChange(12, 1, versions[v - 1], versions[v])], 20));

            // The data file holds a mix: each 512-byte sector from some version in the chain.
            var torn = new byte[8192];
            for (int sector = 0; sector < 16; sector++)
                versions[random.Next(versions.Count)].AsSpan(sector * 512, 512).CopyTo(torn.AsSpan(sector * 512));
            foreach (var start in new[] { versions[0], versions[random.Next(versions.Count)], versions[^1], torn })
            {
                using var target = new MemoryTarget();
                target.Set(12, start);
                foreach (var entry in entries)
                    JournalTestEntries.Apply(reader, entry, target);
                Assert.Equal(versions[^1], target.Bytes(12));
            }
        });
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(200), property);
    }

    [Fact]
    public void An_entry_without_pages_is_valid_and_applies_nothing()
    {
        using var writer = new JournalEntryWriter();
        using var buffer = new JournalBuffer();
        using var reader = new JournalEntryReader();
        var entry = JournalTestEntries.Build(writer, buffer, 5, Guid.NewGuid(), [], 10);
        Assert.Equal(4096, entry.Length);
        using var target = new MemoryTarget();
        Assert.Equal(0, JournalTestEntries.Apply(reader, entry, target));
        Assert.Empty(target.Requests);
    }

    [Fact]
    public void Writer_rejects_misuse()
    {
        using var writer = new JournalEntryWriter();
        using var buffer = new JournalBuffer();
        var page = new byte[8192];
        fixed (byte* p = page)
        {
            byte* pointer = p;
            Assert.Throws<InvalidOperationException>(() => writer.AddPage(5, 1, pointer, null));
            writer.Begin(buffer, 1, Guid.Empty);
            Assert.Throws<InvalidOperationException>(() => writer.Begin(buffer, 2, Guid.Empty));
            Assert.Throws<ArgumentOutOfRangeException>(() => writer.AddPage(1, 1, pointer, null));
            Assert.Throws<ArgumentOutOfRangeException>(() => writer.AddPage(5, 0, pointer, null));
            Assert.Throws<ArgumentOutOfRangeException>(() => writer.AddPage(5, PageRecordHeader.MaxPageCount + 1, pointer, null));
            Assert.Throws<ArgumentNullException>(() => writer.AddPage(5, 1, null, null));
            writer.Cancel();
            Assert.False(writer.IsBuilding);
        }
    }
}
