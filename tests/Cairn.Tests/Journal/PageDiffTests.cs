using Cairn.Journal;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Journal;

/// <summary>The diff format: exact round trips, the documented byte layout, limits, and hostile input.</summary>
public unsafe class PageDiffTests
{
    private const int Page = 8192;

    private static byte[] Encode(byte[] current, byte[]? previous, int limit = int.MaxValue)
    {
        var output = new byte[current.Length * 2 + 64];
        fixed (byte* c = current)
        fixed (byte* p = previous)
        fixed (byte* o = output)
        {
            int n = PageDiffEncoder.Encode(c, p, current.Length, o, Math.Min(limit, output.Length));
            return n < 0 ? null! : output[..n];
        }
    }

    private static string? Apply(byte[] encoded, byte[] target)
    {
        fixed (byte* e = encoded)
        fixed (byte* t = target)
            return PageDiffDecoder.Apply(e, encoded.Length, t, target.Length);
    }

    private static string? Validate(byte[] encoded, int length)
    {
        fixed (byte* e = encoded)
            return PageDiffDecoder.Validate(e, encoded.Length, length);
    }

    [Fact]
    public void Identical_pages_encode_to_nothing()
    {
        var page = new byte[Page];
        new Random(1).NextBytes(page);
        Assert.Empty(Encode(page, page));
        Assert.Empty(Encode(new byte[Page], null));
    }

    /// <summary>
    /// Literals of every length up to past the decoder's short-copy classes (8, 16, 32, 64, 128 bytes), at the start,
    /// middle and end of a run: exactly their bytes change, none around them.
    /// </summary>
    [Fact]
    public void Literals_of_every_length_change_exactly_their_bytes()
    {
        var random = new Random(3);
        for (int length = 1; length <= 300; length++)
        {
            foreach (int skip in new[] { 0, 1, 4093, Page - length })
            {
                var literal = new byte[length];
                random.NextBytes(literal);
                var encoded = new byte[VarInt.MaxLength * 2 + length];
                int at;
                fixed (byte* e = encoded)
                {
                    at = VarInt.Write(e, (ulong)skip);
                    at += VarInt.Write(e + at, (ulong)length << 1);
                }
                literal.CopyTo(encoded, at);
                var target = new byte[Page];
                random.NextBytes(target);
                var expected = (byte[])target.Clone();
                literal.CopyTo(expected, skip);

                Assert.Null(Apply(encoded[..(at + length)], target));
                Assert.Equal(expected, target);
            }
        }
    }

    /// <summary>
    /// Ops that end exactly at the run's last byte (a literal, a zero run; skips and lengths of one byte and of several,
    /// the decoder's short and general varint paths) apply, and one byte more is refused before anything is written.
    /// </summary>
    [Theory]
    [InlineData(1, 7)]
    [InlineData(1, 200)]
    [InlineData(2, 1)]
    [InlineData(2, 63)]
    [InlineData(3, 300)]
    public void Ops_that_run_to_the_runs_end_apply_and_one_byte_more_is_refused(int pages, int count)
    {
        int length = pages * Page;
        foreach (bool literal in new[] { true, false })
        {
            var bytes = new byte[count];
            new Random(count).NextBytes(bytes);
            var target = new byte[length];
            new Random(7).NextBytes(target);
            var expected = (byte[])target.Clone();
            if (literal)
                bytes.CopyTo(expected, length - count);
            else
                Array.Clear(expected, length - count, count);

            Assert.Null(Apply(Op(length - count, count, literal ? bytes : null), target));
            Assert.Equal(expected, target);

            var past = Op(length - count, count + 1, literal ? [.. bytes, 1] : null);
            var untouched = (byte[])target.Clone();
            Assert.Contains("pass the run's end", Validate(past, length));
            Assert.Contains("pass the run's end", Apply(past, target));
            Assert.Equal(untouched, target);
        }
    }

    /// <summary>One op: a skip, then a literal of <paramref name="literal"/>'s bytes, or a zero run when it is null.</summary>
    private static byte[] Op(int skip, int count, byte[]? literal)
    {
        var encoded = new byte[VarInt.MaxLength * 2 + (literal?.Length ?? 0)];
        int at;
        fixed (byte* e = encoded)
        {
            at = VarInt.Write(e, (ulong)skip);
            at += VarInt.Write(e + at, ((ulong)count << 1) | (literal is null ? 1UL : 0UL));
        }
        literal?.CopyTo(encoded, at);
        return encoded[..(at + (literal?.Length ?? 0))];
    }

    [Fact]
    public void One_changed_byte_is_skip_length_literal()
    {
        var before = new byte[Page];
        var after = new byte[Page];
        after[300] = 9;
        // skip 300 = varint AC 02, length 1 literal = 02, then the byte.
        Assert.Equal(new byte[] { 0xAC, 0x02, 0x02, 9 }, Encode(after, before));
        Assert.Equal(new byte[] { 0xAC, 0x02, 0x02, 9 }, Encode(after, null));
    }

    [Fact]
    public void Close_changes_merge_into_one_literal_and_distant_ones_do_not()
    {
        var before = new byte[Page];
        var after = new byte[Page];
        after[10] = 1;
        after[14] = 2; // gap of 3 unchanged bytes: merged
        after[40] = 3; // gap of 25: a new op
        Assert.Equal(new byte[] { 10, 5 << 1, 1, 0, 0, 0, 2, 25, 1 << 1, 3 }, Encode(after, before));
    }

    [Fact]
    public void Zeroed_ranges_become_zero_run_ops()
    {
        var before = new byte[Page];
        new Random(2).NextBytes(before);
        Array.Fill(before, (byte)0xFF, 1000, 100); // no accidental zeros in or next to the range
        var after = (byte[])before.Clone();
        Array.Clear(after, 1000, 100);
        // skip 1000 = E8 07, length 100 zero run = (100 << 1 | 1) = 201 = C9 01.
        Assert.Equal(new byte[] { 0xE8, 0x07, 0xC9, 0x01 }, Encode(after, before));
    }

    [Fact]
    public void A_typical_leaf_insert_costs_a_few_hundred_bytes()
    {
        var random = new Random(3);
        var before = PageImages.Base(BaseKind.Leaf, 1, 77, random);
        var after = PageImages.Changed(before, ChangeKind.LeafInsert, 1, random);
        var diff = Encode(after, before);
        Assert.InRange(diff.Length, 1, 400);
        var replay = (byte[])before.Clone();
        Assert.Null(Apply(diff, replay));
        Assert.Equal(after, replay);
    }

    [Fact]
    public void Round_trip_is_exact_against_the_previous_version_and_against_zeros()
    {
        var property = Prop.ForAll(Arb.From(PageCase.Gen), (PageCase c) =>
        {
            var change = c.Materialize(10);
            var before = change.Previous ?? PageImages.Base(BaseKind.Random, c.PageCount, 10, new Random(c.Seed ^ 0x55));
            var diff = Encode(change.Current, before);
            Assert.Null(Validate(diff, change.Current.Length));
            var replay = (byte[])before.Clone();
            Assert.Null(Apply(diff, replay));
            Assert.Equal(change.Current, replay);

            var fromZeros = Encode(change.Current, null);
            Assert.Null(Validate(fromZeros, change.Current.Length));
            var zeroed = new byte[change.Current.Length];
            Assert.Null(Apply(fromZeros, zeroed));
            Assert.Equal(change.Current, zeroed);
        });
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(400), property);
    }

    [Fact]
    public void The_limit_is_never_passed_and_is_honoured_exactly()
    {
        var property = Prop.ForAll(Arb.From(PageCase.Gen), Arb.From(Gen.Choose(0, 20_000)), (PageCase c, int limit) =>
        {
            var change = c.Materialize(10);
            int unlimited = Encode(change.Current, change.Previous).Length;
            var output = new byte[limit + 64];
            Array.Fill(output, (byte)0xEE);
                int n;
            fixed (byte* cur = change.Current)
            fixed (byte* prev = change.Previous)
            fixed (byte* o = output)
                    n = PageDiffEncoder.Encode(cur, prev, change.Current.Length, o, limit);
            Assert.Equal(unlimited <= limit ? unlimited : -1, n);
            Assert.True(output.AsSpan(limit).IndexOfAnyExcept((byte)0xEE) < 0, "wrote past the limit");
        });
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(300), property);
    }

    [Theory]
    [InlineData(new byte[] { 0x80 }, "truncated skip")]
    [InlineData(new byte[] { 0x05 }, "truncated length")]
    [InlineData(new byte[] { 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x02, 0x00 }, "malformed or truncated skip")]
    [InlineData(new byte[] { 0x00, 0x00 }, "zero length")]
    [InlineData(new byte[] { 0x81, 0x40, 0x03 }, "passes the run's end")] // skip 8193
    [InlineData(new byte[] { 0xFF, 0x3F, 0x05 }, "pass the run's end")]   // skip 8191, 2-byte zero run
    [InlineData(new byte[] { 0x80, 0x40, 0x03 }, "pass the run's end")] // skip 8192, then a 1-byte zero run
    [InlineData(new byte[] { 0x00, 0x83, 0x80, 0x01 }, "pass the run's end")] // zero run of 8193 bytes
    [InlineData(new byte[] { 0x00, 0x08, 1, 2, 3 }, "literal bytes but only 3")]
    [InlineData(new byte[] { 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F }, "pass the run's end")] // length 2^31 - 1
    public void Bad_ops_are_reported_and_change_nothing_when_validated_first(byte[] ops, string problem)
    {
        var reported = Validate(ops, Page);
        Assert.NotNull(reported);
        Assert.Contains(problem, reported);
        var target = new byte[Page];
        Assert.Equal(reported, Apply(ops, target));
    }

    [Fact]
    public void Random_ops_never_touch_memory_outside_the_run_and_always_end()
    {
        var property = Prop.ForAll(Arb.From(Gen.ArrayOf(Gen.Choose(0, 255).Select(b => (byte)b))), Arb.From(Gen.Choose(1, 3)),
            (byte[] ops, int pages) =>
            {
                using var run = new NativeRun(pages);
                string? validated;
                string? applied;
                fixed (byte* e = ops)
                {
                    validated = PageDiffDecoder.Validate(e, ops.Length, run.Length);
                    applied = PageDiffDecoder.Apply(e, ops.Length, run.Pointer, run.Length);
                }
                Assert.Equal(validated, applied);
                Assert.True(run.GuardsIntact);
            });
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(2000), property);
    }
}
