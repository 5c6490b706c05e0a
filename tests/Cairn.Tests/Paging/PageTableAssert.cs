using Cairn.Paging;

namespace Cairn.Tests.Paging;

internal static class PageTableAssert
{
    /// <summary>
    /// The table holds exactly the model: count, every lookup, misses next to every entry, and
    /// enumeration in strictly ascending page-number order, whole and filtered by transaction.
    /// </summary>
    public static void Matches(IReadOnlyDictionary<long, PageVersion> model, PageTable table)
    {
        Assert.Equal(model.Count, table.Count);
        foreach (var (pageNumber, expected) in model)
        {
            Assert.True(table.TryGet(pageNumber, out var actual), $"page {pageNumber} is missing");
            Assert.Equal(expected, actual);
            foreach (long neighbour in new[] { pageNumber - 1, pageNumber + 1, pageNumber ^ (1L << 20) })
                Assert.Equal(model.ContainsKey(neighbour), table.TryGet(neighbour, out _));
        }

        var sorted = model.OrderBy(pair => pair.Key).Select(pair => new PageTableEntry(pair.Key, pair.Value)).ToList();
        var enumerated = new List<PageTableEntry>(table.Count);
        foreach (PageTableEntry entry in table)
            enumerated.Add(entry);
        Assert.Equal(sorted, enumerated);

        long middle = sorted.Count == 0 ? 0 : sorted[sorted.Count / 2].Version.TransactionId;
        var filtered = new List<PageTableEntry>();
        foreach (PageTableEntry entry in table.EntriesUpTo(middle))
            filtered.Add(entry);
        Assert.Equal(sorted.Where(entry => entry.Version.TransactionId <= middle), filtered);
    }
}
