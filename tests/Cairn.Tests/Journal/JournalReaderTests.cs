using System.Runtime.InteropServices;
using Cairn.Journal;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Journal;

/// <summary>
/// Every kind of bad input to the reader: truncations, flipped bits, wrong magic, bad sizes, bad
/// records and diff ops behind valid hashes. Each is reported (Invalid with a reason, or
/// <see cref="JournalCorruptionException"/>) without touching memory it should not or hanging.
/// </summary>
public unsafe class JournalReaderTests
{
    private static readonly Guid Environment = Guid.Parse("0b7e8f3c-65a4-4d0e-9d55-2f5b7c1a9e01");

    /// <summary>A multi-block entry with every encoding in it.</summary>
    private static (byte[] Entry, PageChange[] Changes) SampleEntry(bool compressed = false)
    {
        var random = new Random(11);
        var leaf = PageImages.Base(BaseKind.Leaf, 1, 10, random);
        var changes = new[]
        {
            new PageChange(10, 1, leaf, PageImages.Changed(leaf, ChangeKind.LeafInsert, 3, random)),
            new PageChange(11, 1, null, PageImages.Base(BaseKind.Leaf, 1, 11, random)),
            new PageChange(12, 3, null, PageImages.Base(BaseKind.Overflow, 3, 12, random)),
            new PageChange(15, 1, PageImages.Base(BaseKind.Random, 1, 15, random), PageImages.Base(BaseKind.Random, 1, 15, random)),
            new PageChange(16, 1, null, Enumerable.Range(0, 8192).Select(i => (byte)(i % 7 + 1)).ToArray()), // compressible
        };
        using var writer = new JournalEntryWriter(new JournalWriterOptions
        {
            CompressionThreshold = compressed ? 0 : JournalWriterOptions.CompressionDisabled,
        });
        using var buffer = new JournalBuffer();
        var entry = JournalTestEntries.Build(writer, buffer, 42, Environment, changes, 100);
        Assert.Equal(compressed, writer.LastEntry.Compressed);
        Assert.True(writer.LastEntry is { DiffRecords: >= 1, NewPageRecords: >= 1, FullRecords: >= 1 }, writer.LastEntry.ToString());
        return (entry, changes);
    }

    [Fact]
    public void The_sample_entry_is_valid_and_spans_several_blocks()
    {
        var (entry, _) = SampleEntry();
        var validation = JournalTestEntries.Validate(entry);
        Assert.True(validation.IsValid, validation.ToString());
        Assert.True(entry.Length >= 3 * 4096);
    }

    [Fact]
    public void Truncation_at_every_4_KiB_boundary_and_at_random_offsets_is_invalid()
    {
        foreach (bool compressed in new[] { false, true })
        {
            var (entry, _) = SampleEntry(compressed);
            var offsets = Enumerable.Range(0, entry.Length / 4096).Select(i => i * 4096)
                .Concat(Enumerable.Range(0, 300).Select(i => new Random(i).Next(entry.Length)))
                .Concat([1, 191, 192, 193, entry.Length - 1]);
            foreach (int available in offsets)
            {
                var validation = JournalTestEntries.Validate(entry, available);
                Assert.False(validation.IsValid, $"{available} of {entry.Length} bytes accepted");
                var expected = available == 0 ? JournalEntryProblem.Empty
                    : available < JournalEntryHeader.Size ? JournalEntryProblem.TruncatedHeader
                    : JournalEntryProblem.Truncated;
                Assert.Equal(expected, validation.Problem);
                if (expected == JournalEntryProblem.Truncated)
                {
                    Assert.True(validation.HeaderIsTrusted);
                    Assert.Equal((ulong)entry.Length, validation.Expected);
                    Assert.Equal((ulong)available, validation.Actual);
                }
                Assert.False(string.IsNullOrEmpty(validation.Reason));
            }
            Assert.True(JournalTestEntries.Validate(entry, entry.Length).IsValid);
        }
    }

    [Fact]
    public void Truncation_inside_the_buffer_is_caught_even_with_bytes_beyond_it_in_memory()
    {
        // The reader must only trust "available", not whatever follows in memory.
        var (entry, _) = SampleEntry();
        var padded = entry.Concat(new byte[8192]).ToArray();
        Assert.Equal(JournalEntryProblem.Truncated, JournalTestEntries.Validate(padded, entry.Length - 4096).Problem);
    }

    [Fact]
    public void Any_flipped_bit_in_the_header_or_payload_is_invalid_with_the_right_reason()
    {
        foreach (bool compressed in new[] { false, true })
        {
            var (entry, _) = SampleEntry(compressed);
            long payload = JournalTestEntries.Validate(entry).Header.PayloadSize;
            int covered = JournalEntryHeader.Size + (int)payload;
            var property = Prop.ForAll(Arb.From(Gen.Choose(0, covered * 8 - 1)), bit =>
            {
                var copy = (byte[])entry.Clone();
                copy[bit / 8] ^= (byte)(1 << (bit % 8));
                var validation = JournalTestEntries.Validate(copy);
                Assert.False(validation.IsValid);
                var expected = bit / 8 < 8 ? JournalEntryProblem.BadMagic
                    : bit / 8 < JournalEntryHeader.Size ? JournalEntryProblem.HeaderChecksumMismatch
                    : JournalEntryProblem.PayloadHashMismatch;
                Assert.Equal(expected, validation.Problem);
                if (expected == JournalEntryProblem.PayloadHashMismatch)
                    Assert.Equal(42, validation.Header.TransactionId); // the header is still reported
            });
            Check.One(Config.QuickThrowOnFailure.WithMaxTest(500), property);
        }
    }

    [Fact]
    public void Every_single_bit_flip_in_the_header_is_caught()
    {
        var (entry, _) = SampleEntry();
        for (int bit = 0; bit < JournalEntryHeader.Size * 8; bit++)
        {
            var copy = (byte[])entry.Clone();
            copy[bit / 8] ^= (byte)(1 << (bit % 8));
            Assert.False(JournalTestEntries.Validate(copy).IsValid, $"bit {bit}");
        }
    }

    [Fact]
    public void Flips_in_the_padding_do_not_matter()
    {
        var (entry, changes) = SampleEntry();
        long payload = JournalTestEntries.Validate(entry).Header.PayloadSize;
        var copy = (byte[])entry.Clone();
        copy[^1] ^= 0xFF;
        copy[JournalEntryHeader.Size + (int)payload] ^= 1;
        Assert.True(JournalTestEntries.Validate(copy).IsValid);
        using var reader = new JournalEntryReader();
        using var target = Prepared(changes);
        JournalTestEntries.Apply(reader, copy, target);
        Assert.Equal(changes[0].Current, target.Bytes(10));
    }

    [Fact]
    public void Zeros_are_empty_and_other_junk_is_bad_magic()
    {
        var zeros = new byte[8192];
        Assert.Equal(JournalEntryProblem.Empty, JournalTestEntries.Validate(zeros).Problem);
        Assert.Equal(JournalEntryProblem.Empty, JournalTestEntries.Validate(zeros, 100).Problem);
        var junk = new byte[8192];
        junk[150] = 1; // magic zero, but not an empty header
        Assert.Equal(JournalEntryProblem.BadMagic, JournalTestEntries.Validate(junk).Problem);
        Assert.Equal(JournalEntryProblem.TruncatedHeader, JournalTestEntries.Validate(junk, 151).Problem);

        var (entry, _) = SampleEntry();
        var wrong = (byte[])entry.Clone();
        "CAIRNDB1"u8.CopyTo(wrong); // a data file header is not an entry
        var validation = JournalTestEntries.Validate(wrong);
        Assert.Equal(JournalEntryProblem.BadMagic, validation.Problem);
        Assert.Contains("CAIRNJE1", validation.Reason);
    }

    [Fact]
    public void The_environment_id_is_reported_for_the_caller_to_check()
    {
        var (entry, _) = SampleEntry();
        var validation = JournalTestEntries.Validate(entry);
        Assert.True(validation.IsValid);
        Assert.Equal(Environment, validation.Header.EnvironmentId);
        Assert.NotEqual(Guid.NewGuid(), validation.Header.EnvironmentId);
    }

    [Fact]
    public void Header_fields_are_checked_after_the_checksum()
    {
        var (entry, _) = SampleEntry();
        Assert.Equal(JournalEntryProblem.UnsupportedVersion,
            Edited(entry, (ref JournalEntryHeader h) => h.FormatVersion = JournalEntryHeader.CurrentFormatVersion + 1).Problem);
        Assert.Equal(JournalEntryProblem.UnknownFlags, Edited(entry, (ref JournalEntryHeader h) => h.Flags |= (JournalEntryFlags)4).Problem);
        Assert.Equal(JournalEntryProblem.BadSizes, Edited(entry, (ref JournalEntryHeader h) => h.PageCount = -1).Problem);
        Assert.Equal(JournalEntryProblem.BadSizes, Edited(entry, (ref JournalEntryHeader h) => h.PayloadSize = -5).Problem);
        Assert.Equal(JournalEntryProblem.BadSizes, Edited(entry, (ref JournalEntryHeader h) => h.UncompressedPayloadSize += 1).Problem);
        Assert.Equal(JournalEntryProblem.BadSizes, Edited(entry, (ref JournalEntryHeader h) => h.PageCount = 1_000_000).Problem);
        Assert.Equal(JournalEntryProblem.BadSizes, Edited(entry, (ref JournalEntryHeader h) =>
        {
            h.Flags = JournalEntryFlags.Compressed;
            h.UncompressedPayloadSize = long.MaxValue;
        }).Problem);
        var past = Edited(entry, (ref JournalEntryHeader h) =>
        {
            h.PayloadSize = long.MaxValue - 10;
            h.UncompressedPayloadSize = h.PayloadSize;
        });
        Assert.Equal(JournalEntryProblem.Truncated, past.Problem);
        var oneBlockMore = Edited(entry, (ref JournalEntryHeader h) =>
        {
            h.PayloadSize += 4096;
            h.UncompressedPayloadSize = h.PayloadSize;
        });
        Assert.Equal(JournalEntryProblem.Truncated, oneBlockMore.Problem);
        Assert.Equal((ulong)entry.Length + 4096, oneBlockMore.Expected);
    }

    /// <summary>
    /// Version 1 sealed entries with XXH64, so the current checksum does not match; the reader recognises the
    /// header by its own version's checksum and refuses it for its version, with the header trusted, instead of
    /// reporting a torn or damaged header.
    /// </summary>
    [Fact]
    public void An_entry_of_format_version_1_is_refused_for_its_version_not_as_damage()
    {
        var (entry, _) = SampleEntry();
        JournalTestEntries.ToFormatVersion1(entry);
        var validation = JournalTestEntries.Validate(entry);
        Assert.Equal(JournalEntryProblem.UnsupportedVersion, validation.Problem);
        Assert.True(validation.HeaderIsTrusted);
        Assert.Equal(42, validation.Header.TransactionId);
        Assert.Equal($"format version 1 is not supported (this build reads {JournalEntryHeader.CurrentFormatVersion})", validation.Reason);

        // Damaged, it is damage: only a header that holds its own version's checksum is believed.
        entry[100] ^= 1;
        Assert.Equal(JournalEntryProblem.HeaderChecksumMismatch, JournalTestEntries.Validate(entry).Problem);
        entry[100] ^= 1;
        // Nor does the old checksum make a header of the current version valid.
        entry[8] = (byte)JournalEntryHeader.CurrentFormatVersion;
        Assert.Equal(JournalEntryProblem.HeaderChecksumMismatch, JournalTestEntries.Validate(entry).Problem);
    }

    private delegate void HeaderEdit(ref JournalEntryHeader header);

    /// <summary>Edits the header and recomputes its checksum (not the payload hash), as a buggy writer would.</summary>
    private static JournalEntryValidation Edited(byte[] entry, HeaderEdit edit)
    {
        var copy = (byte[])entry.Clone();
        var header = MemoryMarshal.Read<JournalEntryHeader>(copy);
        edit(ref header);
        header.HeaderChecksum = Cairn.Hashing.Checksums.Compute(MemoryMarshal.AsBytes(new ReadOnlySpan<JournalEntryHeader>(in header))[..JournalEntryHeader.ChecksummedLength],
            unchecked((ulong)header.TransactionId));
        MemoryMarshal.Write(copy, in header);
        var validation = JournalTestEntries.Validate(copy);
        Assert.False(validation.IsValid);
        Assert.True(validation.HeaderIsTrusted);
        return validation;
    }

    // ---- bad content behind valid hashes: JournalCorruptionException, target untouched ----

    public static TheoryData<string, byte[], int, string> BadRecords() => new()
    {
        { "encoded bytes past the payload", JournalTestEntries.Record(10, 1, PageRecordEncoding.Diff, [0, 2, 7], encodedLength: 50), 1, "pass the payload's end" },
        { "negative encoded length", JournalTestEntries.Record(10, 1, PageRecordEncoding.Diff, [], encodedLength: -1), 1, "pass the payload's end" },
        { "page count zero", JournalTestEntries.Record(10, 0, PageRecordEncoding.Diff, []), 1, "page count 0" },
        { "page count too large", JournalTestEntries.Record(10, int.MaxValue, PageRecordEncoding.Diff, []), 1, "page count" },
        { "page past the high-water mark", JournalTestEntries.Record(99, 2, PageRecordEncoding.NewPage, []), 1, "outside [2, 100)" },
        { "negative page number", JournalTestEntries.Record(-5, 1, PageRecordEncoding.NewPage, []), 1, "outside" },
        { "a file header page", JournalTestEntries.Record(1, 1, PageRecordEncoding.NewPage, []), 1, "outside" },
        { "unknown encoding", JournalTestEntries.Record(10, 1, (PageRecordEncoding)3, []), 1, "unknown encoding 3" },
        { "short full record", JournalTestEntries.Record(10, 1, PageRecordEncoding.Full, new byte[100]), 1, "a full record of 100 bytes" },
        { "fewer records than promised", [.. JournalTestEntries.Record(10, 1, PageRecordEncoding.NewPage, [0, 2, 9]), .. new byte[14]], 2, "passes the payload's end" },
        { "more records than promised", [.. JournalTestEntries.Record(10, 1, PageRecordEncoding.NewPage, []), .. JournalTestEntries.Record(11, 1, PageRecordEncoding.NewPage, [])], 1, "follow the last of its 1 records" },
        { "diff op past the page", JournalTestEntries.Record(10, 1, PageRecordEncoding.Diff, [0xFF, 0x3F, 0x04, 1, 2]), 1, "pass the run's end" },
        { "diff skip past the page", JournalTestEntries.Record(10, 1, PageRecordEncoding.NewPage, [0x81, 0x40, 0x03]), 1, "passes the run's end" },
        { "diff literal past its record", JournalTestEntries.Record(10, 1, PageRecordEncoding.Diff, [0x00, 0x10, 1, 2]), 1, "literal bytes but only 2" },
        { "truncated varint", JournalTestEntries.Record(10, 1, PageRecordEncoding.Diff, [0x80]), 1, "truncated skip" },
        { "bad op in a later record", [.. JournalTestEntries.Record(10, 1, PageRecordEncoding.NewPage, [0, 2, 9]), .. JournalTestEntries.Record(11, 1, PageRecordEncoding.Diff, [0, 0])], 2, "zero length" },
    };

    [Theory]
    [MemberData(nameof(BadRecords))]
    public void Bad_records_behind_valid_hashes_throw_and_leave_the_target_untouched(string name, byte[] payload, int records, string problem)
    {
        var entry = JournalTestEntries.Seal(payload, records, 7, 100);
        var validation = JournalTestEntries.Validate(entry, offset: 8192);
        Assert.True(validation.IsValid, $"{name}: {validation}");
        using var reader = new JournalEntryReader();
        using var target = new MemoryTarget();
        var page10 = new byte[8192];
        new Random(5).NextBytes(page10);
        target.Set(10, page10);
        var exception = Assert.Throws<JournalCorruptionException>(() => JournalTestEntries.Apply(reader, entry, target, offset: 8192));
        Assert.Contains(problem, exception.Message);
        Assert.Equal(8192, exception.EntryOffset);
        Assert.Equal(7, exception.TransactionId);
        Assert.Empty(target.Requests);
        Assert.Equal(page10, target.Bytes(10));
    }

    /// <summary>
    /// Five diff records, the third with a bad op after good ones (its skip and length several bytes long): the entry is
    /// refused naming that record, and no page of the entry is asked for or changed, neither those before nor after it.
    /// </summary>
    [Fact]
    public void A_bad_op_in_the_middle_of_an_entry_leaves_every_page_of_the_entry_untouched()
    {
        byte[] good = [0x81, 0x01, 0x06, 1, 2, 3, 0x90, 0x03, 0x0B]; // skip 129, literal of 3; skip 400, zero run of 5
        byte[] bad = [.. good, 0xFF, 0x3F, 0x04, 9, 9]; // then skip 8191 from byte 537: past the page
        var payload = new List<byte>();
        for (long page = 10; page < 15; page++)
            payload.AddRange(JournalTestEntries.Record(page, 1, PageRecordEncoding.Diff, page == 12 ? bad : good));
        var entry = JournalTestEntries.Seal(payload.ToArray(), 5, 7, 100);
        using var reader = new JournalEntryReader();
        using var target = new MemoryTarget();
        var before = new Dictionary<long, byte[]>();
        for (long page = 10; page < 15; page++)
        {
            before[page] = new byte[8192];
            new Random((int)page).NextBytes(before[page]);
            target.Set(page, before[page]);
        }

        var exception = Assert.Throws<JournalCorruptionException>(() => JournalTestEntries.Apply(reader, entry, target, offset: 8192));
        Assert.Contains("page 12", exception.Message);
        Assert.Contains("diff op 2", exception.Message);
        Assert.Empty(target.Requests);
        for (long page = 10; page < 15; page++)
            Assert.Equal(before[page], target.Bytes(page));

        // The same reader then applies a good entry whole (nothing of the refused one carried over).
        var fixedPayload = new List<byte>();
        for (long page = 10; page < 15; page++)
            fixedPayload.AddRange(JournalTestEntries.Record(page, 1, PageRecordEncoding.Diff, good));
        Assert.Equal(5, JournalTestEntries.Apply(reader, JournalTestEntries.Seal(fixedPayload.ToArray(), 5, 8, 100), target));
        for (long page = 10; page < 15; page++)
        {
            var expected = before[page];
            expected[129] = 1;
            expected[130] = 2;
            expected[131] = 3;
            Array.Clear(expected, 532, 5);
            Assert.Equal(expected, target.Bytes(page));
        }
    }

    [Fact]
    public void A_nonsensical_high_water_mark_does_not_let_records_through()
    {
        var payload = JournalTestEntries.Record(10, 1, PageRecordEncoding.NewPage, [0, 2, 9]);
        using var reader = new JournalEntryReader();
        using var target = new MemoryTarget();
        foreach (long next in new[] { long.MinValue, -1, 0, 10 })
        {
            var entry = JournalTestEntries.Seal(payload, 1, 3, next);
            Assert.Throws<JournalCorruptionException>(() => JournalTestEntries.Apply(reader, entry, target));
        }
        Assert.Equal(1, JournalTestEntries.Apply(reader, JournalTestEntries.Seal(payload, 1, 3, 11), target));
    }

    [Fact]
    public void A_compressed_payload_that_does_not_decompress_to_the_promised_size_throws()
    {
        var (entry, _) = SampleEntry(compressed: true);
        var header = JournalTestEntries.Validate(entry).Header;
        using var reader = new JournalEntryReader();
        using var target = new MemoryTarget();

        var garbage = new byte[1000];
        new Random(3).NextBytes(garbage);
        var sealedGarbage = JournalTestEntries.Seal(garbage, 1, 9, 100, JournalEntryFlags.Compressed, uncompressedSize: 5000);
        Assert.Throws<JournalCorruptionException>(() => JournalTestEntries.Apply(reader, sealedGarbage, target));

        foreach (long promised in new[] { header.UncompressedPayloadSize - 1, header.UncompressedPayloadSize + 1 })
        {
            var payload = entry.AsSpan(JournalEntryHeader.Size, (int)header.PayloadSize);
            var wrongSize = JournalTestEntries.Seal(payload, header.PageCount, 42, 100, JournalEntryFlags.Compressed, promised);
            var exception = Assert.Throws<JournalCorruptionException>(() => JournalTestEntries.Apply(reader, wrongSize, target));
            Assert.Contains("decompress", exception.Message);
        }
        Assert.Empty(target.Requests);
    }

    [Fact]
    public void Mutated_payloads_behind_valid_hashes_throw_or_apply_but_never_escape_their_pages()
    {
        var (entry, changes) = SampleEntry();
        int payload = (int)JournalTestEntries.Validate(entry).Header.PayloadSize;
        using var reader = new JournalEntryReader();
        var mutation = Gen.Choose(0, payload - 1).SelectMany(at => Gen.Choose(0, 255).SelectMany(value =>
            Gen.Choose(0, 2).Select(kind => (at, value, kind))));
        var property = Prop.ForAll(Arb.From(Gen.Choose(1, 6).SelectMany(n => Gen.ArrayOf(mutation, n))),
            ((int At, int Value, int Kind)[] edits) =>
            {
                var copy = (byte[])entry.Clone();
                var body = copy.AsSpan(JournalEntryHeader.Size, payload);
                foreach (var (at, value, kind) in edits)
                {
                    if (kind == 0)
                        body[at] = (byte)value;
                    else if (kind == 1)
                        body[at] ^= (byte)(1 << (value % 8));
                    else
                        body[at..].Clear(); // lose the rest
                }
                JournalTestEntries.Reseal(copy);
                using var target = Prepared(changes, allowUnknownDiffBases: true);
                try
                {
                    JournalTestEntries.Apply(reader, copy, target);
                }
                catch (JournalCorruptionException)
                {
                }
                Assert.True(target.GuardsIntact);
            });
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(1000), property);
    }

    [Fact]
    public void Random_bytes_as_an_entry_are_invalid()
    {
        var property = Prop.ForAll(Arb.From(Gen.ArrayOf(Gen.Choose(0, 255).Select(b => (byte)b))), (byte[] bytes) =>
        {
            var validation = JournalTestEntries.Validate(bytes);
            Assert.False(validation.IsValid);
        });
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(500), property);
    }

    private static MemoryTarget Prepared(PageChange[] changes, bool allowUnknownDiffBases = false)
    {
        var target = new MemoryTarget { AllowUnknownDiffBases = allowUnknownDiffBases };
        foreach (var change in changes)
            target.Set(change.PageNumber, change.Previous ?? new byte[change.Current.Length]);
        return target;
    }
}
