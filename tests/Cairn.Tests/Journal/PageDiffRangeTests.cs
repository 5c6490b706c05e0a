using Cairn.Journal;
using Cairn.Paging;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Journal;

/// <summary>
/// The diff restricted to a page's recorded write ranges: the same ops as the whole-page diff whenever the ranges
/// cover every change, and the check that catches ranges that do not.
/// </summary>
public unsafe class PageDiffRangeTests
{
    private const int Page = StorageConstants.PageSize;

    private static byte[]? Encode(byte[] current, byte[] previous, DirtyRanges* ranges, int limit)
    {
        var output = new byte[Page * 2];
        fixed (byte* c = current)
        fixed (byte* p = previous)
        fixed (byte* o = output)
        {
            int n = PageDiffEncoder.Encode(c, p, current.Length, o, Math.Min(limit, output.Length), ranges);
            return n < 0 ? null : output[..n];
        }
    }

    /// <summary>
    /// Writes of random bytes (often equal to what was there, so ranges hold unchanged bytes at their edges and inside),
    /// each recorded: the ops are byte for byte those of the whole-page diff, with and without a tight limit.
    /// </summary>
    [Fact]
    public void Recorded_ranges_give_the_same_ops_as_the_whole_page()
    {
        var write = Gen.Choose(0, Page - 1).SelectMany(start => Gen.Choose(1, 300).SelectMany(length =>
            Gen.Choose(0, 3).Select(kind => (start, Math.Min(Page, start + length), kind))));
        var cases = Gen.Choose(0, int.MaxValue).SelectMany(seed => Gen.ArrayOf(write).Select(writes => (seed, writes)));
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(300).WithQuietOnSuccess(true), Prop.ForAll(Arb.From(cases), ((int seed, (int, int, int)[] writes) c) =>
        {
            var random = new Random(c.seed);
            var previous = new byte[Page];
            random.NextBytes(previous);
            for (int i = 0; i < Page; i += random.Next(1, 200))
                previous[i..Math.Min(Page, i + random.Next(0, 40))].AsSpan().Clear(); // zero stretches: zero-run ops
            var current = (byte[])previous.Clone();
            var ranges = new DirtyRanges();
            ranges.StartWithHeader();
            random.NextBytes(current.AsSpan(0, PageHeader.Size));
            foreach (var (start, end, kind) in c.writes)
            {
                var target = current.AsSpan(start, end - start);
                switch (kind)
                {
                    case 0: random.NextBytes(target); break;
                    case 1: target.Clear(); break;
                    case 2: previous.AsSpan(start, end - start).CopyTo(target); break; // written back unchanged
                    default: target[target.Length / 2] ^= 1; break;
                }
                ranges.Add(start, end);
            }
            foreach (int limit in new[] { Page - 1, 64, 8 })
            {
                byte[]? whole = Encode(current, previous, null, limit);
                byte[]? restricted = Encode(current, previous, &ranges, limit);
                if (whole is null ? restricted is not null : restricted is null || !whole.AsSpan().SequenceEqual(restricted))
                    return false;
            }
            return true;
        }));
    }

    [Fact]
    public void A_change_outside_the_ranges_is_reported_with_its_page_and_offset()
    {
        var previous = new byte[Page];
        new Random(5).NextBytes(previous);
        var current = (byte[])previous.Clone();
        var ranges = new DirtyRanges();
        ranges.StartWithHeader();
        ranges.Add(1000, 1100);
        current[0] ^= 1;
        current[1099] ^= 1;
        DirtyRanges* r = &ranges;
        fixed (byte* pinnedCurrent = current)
        fixed (byte* pinnedPrevious = previous)
        {
            byte* c = pinnedCurrent, p = pinnedPrevious; // lambdas cannot use fixed locals themselves
            DirtyRangeChecks.Verify(7, c, p, Page, r);
            c[1100] ^= 0x40;
            var miss = Assert.Throws<DirtyRangeMissException>(() => DirtyRangeChecks.Verify(7, c, p, Page, r));
            Assert.Equal(7, miss.PageNumber);
            Assert.Equal(1100, miss.Offset);
            Assert.Contains("[1000, 1100)", miss.Message);
            c[1100] ^= 0x40;
            c[Page - 1] ^= 1;
            Assert.Equal(Page - 1, Assert.Throws<DirtyRangeMissException>(() => DirtyRangeChecks.Verify(7, c, p, Page, r)).Offset);
            r->SetWhole();
            DirtyRangeChecks.Verify(7, c, p, Page, r);
        }
    }

    /// <summary>The test project turns the check on, so the commits of every other test check each page they diff.</summary>
    [Fact]
    public void The_check_is_on_in_the_tests_and_a_journal_entry_refuses_a_page_with_a_missed_change()
    {
        Assert.True(DirtyRangeChecks.Enabled);
        var previous = new byte[Page];
        new Random(6).NextBytes(previous);
        var current = (byte[])previous.Clone();
        current[2000] ^= 1;
        var ranges = new DirtyRanges();
        ranges.StartWithHeader();
        using var buffer = new JournalBuffer(JournalBuffer.Alignment);
        using var writer = new JournalEntryWriter();
        writer.Begin(buffer, 1, Guid.NewGuid());
        long before = DirtyRangeChecks.PagesChecked;
        DirtyRanges* r = &ranges;
        fixed (byte* pinnedCurrent = current)
        fixed (byte* pinnedPrevious = previous)
        {
            byte* c = pinnedCurrent, p = pinnedPrevious; // lambdas cannot use fixed locals themselves
            var miss = Assert.Throws<DirtyRangeMissException>(() => writer.AddPage(9, 1, c, p, r));
            Assert.Equal(2000, miss.Offset);
            r->Add(1990, 2010);
            Assert.Equal(PageRecordEncoding.Diff, writer.AddPage(9, 1, c, p, r));
        }
        Assert.True(DirtyRangeChecks.PagesChecked >= before + 2);
        writer.Cancel();
    }
}
