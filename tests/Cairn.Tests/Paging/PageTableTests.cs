using Cairn.Paging;
using Cairn.Tests.Support;

namespace Cairn.Tests.Paging;

public class PageTableTests
{
    private const long LastPageNumber = PageTable.PageNumberLimit - 1;

    [Fact]
    public void The_empty_table_holds_nothing()
    {
        PageTable empty = PageTable.Empty;
        Assert.Equal(0, empty.Count);
        foreach (long pageNumber in new[] { 0L, 1L, 63L, -1L, LastPageNumber, long.MaxValue, long.MinValue })
            Assert.False(empty.TryGet(pageNumber, out _));
        foreach (PageTableEntry _ in empty)
            Assert.Fail("the empty table enumerated an entry");
    }

    [Fact]
    public void Set_then_get_across_every_level_boundary()
    {
        long[] pageNumbers = [0, 1, 63, 64, 4095, 4096, 262143, 262144, 1L << 24, (1L << 30) - 1, 1L << 30, 1L << 36, LastPageNumber - 64, LastPageNumber - 1, LastPageNumber];
        var builder = PageTable.Empty.ToBuilder();
        foreach (long pageNumber in pageNumbers)
            builder.Set(pageNumber, VersionFor(pageNumber, 1));
        PageTable table = builder.ToImmutable();

        Assert.Equal(pageNumbers.Length, table.Count);
        foreach (long pageNumber in pageNumbers)
        {
            Assert.True(table.TryGet(pageNumber, out var version));
            Assert.Equal(VersionFor(pageNumber, 1), version);
            if (Array.IndexOf(pageNumbers, pageNumber + 1) < 0)
                Assert.False(table.TryGet(pageNumber + 1, out _));
        }
        Assert.False(table.TryGet(-1, out _));
        Assert.False(table.TryGet(PageTable.PageNumberLimit, out _));
        Assert.False(table.TryGet(long.MinValue, out _));
        Assert.Equal(pageNumbers, Enumerate(table).Select(entry => entry.PageNumber));
    }

    [Fact]
    public void A_lone_page_near_the_top_is_found_and_removed()
    {
        var builder = PageTable.Empty.ToBuilder();
        builder.Set(LastPageNumber, VersionFor(LastPageNumber, 9));
        PageTable one = builder.ToImmutable();
        Assert.True(one.TryGet(LastPageNumber, out var version));
        Assert.Equal(9, version.TransactionId);
        Assert.False(one.TryGet(LastPageNumber - 1, out _));
        Assert.False(one.TryGet(LastPageNumber & ~63L, out _));

        Assert.True(builder.Remove(LastPageNumber));
        Assert.False(builder.Remove(LastPageNumber));
        PageTable none = builder.ToImmutable();
        Assert.Equal(0, none.Count);
        Assert.False(none.TryGet(LastPageNumber, out _));
        Assert.True(one.TryGet(LastPageNumber, out _));
    }

    [Theory]
    [InlineData(-1L)]
    [InlineData(PageTable.PageNumberLimit)]
    [InlineData(long.MaxValue)]
    public void Page_numbers_outside_the_range_are_refused(long pageNumber)
        => Assert.Throws<ArgumentOutOfRangeException>(() => PageTable.Empty.ToBuilder().Set(pageNumber, default));

    [Fact]
    public void Builders_never_change_the_table_they_started_from()
    {
        var first = PageTable.Empty.ToBuilder();
        for (long pageNumber = 0; pageNumber < 1000; pageNumber++)
            first.Set(pageNumber, VersionFor(pageNumber, 1));
        PageTable original = first.ToImmutable();

        // Keep using the same builder after publishing, and start another from the published table.
        for (long pageNumber = 0; pageNumber < 1000; pageNumber += 3)
            first.Set(pageNumber, VersionFor(pageNumber, 2));
        first.Set(1L << 35, VersionFor(1L << 35, 2));
        var second = original.ToBuilder();
        for (long pageNumber = 0; pageNumber < 1000; pageNumber += 2)
            second.Remove(pageNumber);
        PageTable fromFirst = first.ToImmutable(), fromSecond = second.ToImmutable();

        Assert.Equal(1000, original.Count);
        for (long pageNumber = 0; pageNumber < 1000; pageNumber++)
        {
            Assert.True(original.TryGet(pageNumber, out var version));
            Assert.Equal(VersionFor(pageNumber, 1), version);
        }
        Assert.False(original.TryGet(1L << 35, out _));
        Assert.Equal(1001, fromFirst.Count);
        Assert.Equal(500, fromSecond.Count);
        Assert.True(fromFirst.TryGet(3, out var updated) && updated.TransactionId == 2);
        Assert.False(fromSecond.TryGet(2, out _));
    }

    [Fact]
    public void Publishing_without_changes_returns_the_same_table()
    {
        var builder = PageTable.Empty.ToBuilder();
        Assert.Same(PageTable.Empty, builder.ToImmutable());
        builder.Set(5, VersionFor(5, 1));
        PageTable table = builder.ToImmutable();
        Assert.Same(table, builder.ToImmutable());
        Assert.False(builder.Remove(6));
        Assert.Same(table, builder.ToImmutable());
        Assert.Same(table, table.ToBuilder().ToImmutable());
    }

    [Fact]
    public void Entries_up_to_a_transaction_are_the_older_ones_in_page_order()
    {
        var builder = PageTable.Empty.ToBuilder();
        var random = new Random(7);
        var model = new SortedDictionary<long, PageVersion>();
        for (int i = 0; i < 5000; i++)
        {
            long pageNumber = random.NextInt64(1L << 20);
            var version = VersionFor(pageNumber, random.Next(1, 100));
            builder.Set(pageNumber, version);
            model[pageNumber] = version;
        }
        PageTable table = builder.ToImmutable();

        var upTo50 = new List<PageTableEntry>();
        foreach (PageTableEntry entry in table.EntriesUpTo(50))
            upTo50.Add(entry);
        Assert.Equal(model.Where(pair => pair.Value.TransactionId <= 50).Select(pair => new PageTableEntry(pair.Key, pair.Value)), upTo50);
        Assert.NotEmpty(upTo50);
    }

    /// <summary>Measured in a test child of its own (<see cref="IsolatedAllocation"/>).</summary>
    [Fact]
    public void Lookups_and_enumeration_allocate_nothing() => Assert.Equal(0, IsolatedAllocation.Measure(LookupAndEnumerationProbe));

    internal static long LookupAndEnumerationProbe()
    {
        var builder = PageTable.Empty.ToBuilder();
        for (long pageNumber = 0; pageNumber < 20_000; pageNumber += 2)
            builder.Set(pageNumber * 977, VersionFor(pageNumber, 1));
        PageTable table = builder.ToImmutable();
        long found = Probe(table) + Probe(PageTable.Empty) + Walk(table); // JIT and warm up first
        Assert.Equal(10_000 + 10_000, found);

        long allocated = SteadyStateAllocation.Measure(() => found = Probe(table) + Probe(PageTable.Empty) + Walk(table));
        Assert.Equal(10_000 + 10_000, found);
        return allocated;

        static long Probe(PageTable table)
        {
            long hits = 0;
            for (long pageNumber = 0; pageNumber < 20_000; pageNumber++)
            {
                if (table.TryGet(pageNumber * 977, out _)) hits++;
                if (table.TryGet(pageNumber * 977 + 1, out _)) hits++;
            }
            return hits;
        }

        static long Walk(PageTable table)
        {
            long entries = 0;
            foreach (PageTableEntry _ in table)
                entries++;
            foreach (PageTableEntry _ in table.EntriesUpTo(long.MaxValue))
                entries--;
            return entries + table.Count;
        }
    }

    /// <summary>Scale: a random history with many more entries than any model-based case reaches.</summary>
    [Fact]
    public void A_long_random_history_matches_a_dictionary()
    {
        var random = new Random(2026);
        var builder = PageTable.Empty.ToBuilder();
        var model = new Dictionary<long, PageVersion>();
        var snapshots = new List<(PageTable Table, Dictionary<long, PageVersion> Model)>();
        for (int commit = 1; commit <= 400; commit++)
        {
            for (int write = 0; write < 500; write++)
            {
                long pageNumber = random.Next(4) == 0 ? random.NextInt64(PageTable.PageNumberLimit) : random.NextInt64(200_000);
                if (random.Next(5) == 0)
                {
                    Assert.Equal(model.Remove(pageNumber), builder.Remove(pageNumber));
                }
                else
                {
                    var version = VersionFor(pageNumber, commit);
                    builder.Set(pageNumber, version);
                    model[pageNumber] = version;
                }
            }
            PageTable table = builder.ToImmutable();
            if (commit % 40 == 0)
                snapshots.Add((table, new Dictionary<long, PageVersion>(model)));
        }

        Assert.True(snapshots[^1].Table.Count > 100_000);
        foreach (var (table, expected) in snapshots)
            PageTableAssert.Matches(expected, table);
    }

    internal static PageVersion VersionFor(long pageNumber, long transactionId)
        => new((nint)(pageNumber * 8192 + transactionId), transactionId, (int)(transactionId % 4) + 1);

    private static List<PageTableEntry> Enumerate(PageTable table)
    {
        var entries = new List<PageTableEntry>();
        foreach (PageTableEntry entry in table)
            entries.Add(entry);
        return entries;
    }
}
