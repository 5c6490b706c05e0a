namespace Cairn.Tests.FreeSpace;

/// <summary>
/// What the free-space map should hold, as plain sets, for <see cref="FreeSpaceMapModelTests"/>. A
/// transaction's changes to the persistent bits, the high-water mark and the pages in use are undone
/// by a rollback; the pages it took from free space become available again.
/// </summary>
internal sealed class FreeSpaceModel(long firstDataPage)
{
    private Snapshot _committed = new([], firstDataPage, []);
    private readonly List<(long Page, int Count)> _takenFromFreeSpace = [];
    private readonly List<(long Page, int Count)> _freedInTransaction = [];

    private sealed record Snapshot(HashSet<long> MarkedFree, long NextPageNumber, List<(long Page, int Count)> Owned);

    /// <summary>Persistent bits as the open transaction sees them.</summary>
    public HashSet<long> MarkedFree { get; private set; } = [];

    /// <summary>Pages the map may hand out now.</summary>
    public HashSet<long> Available { get; } = [];

    public long NextPageNumber { get; private set; } = firstDataPage;

    /// <summary>Runs in use, as allocated: the runs a free gives back.</summary>
    public List<(long Page, int Count)> Owned { get; private set; } = [];

    /// <summary>Runs freed by committed transactions that no release has made available yet.</summary>
    public List<(long Page, int Count)> Waiting { get; } = [];

    public long Allocate(int count)
    {
        long page = Available.Order().FirstOrDefault(p => Enumerable.Range(0, count).All(i => Available.Contains(p + i)), -1);
        if (page >= 0)
        {
            for (long p = page; p < page + count; p++)
            {
                Available.Remove(p);
                MarkedFree.Remove(p);
            }
            _takenFromFreeSpace.Add((page, count));
        }
        else
        {
            page = NextPageNumber;
            NextPageNumber += count;
        }
        Owned.Add((page, count));
        return page;
    }

    public void Free(long page, int count)
    {
        Owned.Remove((page, count));
        for (long p = page; p < page + count; p++)
            MarkedFree.Add(p);
        _freedInTransaction.Add((page, count));
    }

    public void Release(long page, int count)
    {
        Waiting.Remove((page, count));
        for (long p = page; p < page + count; p++)
            Available.Add(p);
    }

    public void Commit()
    {
        Waiting.AddRange(_freedInTransaction);
        _freedInTransaction.Clear();
        _takenFromFreeSpace.Clear();
        _committed = new Snapshot([.. MarkedFree], NextPageNumber, [.. Owned]);
    }

    public void Rollback()
    {
        foreach (var (page, count) in _takenFromFreeSpace)
            for (long p = page; p < page + count; p++)
                Available.Add(p);
        _takenFromFreeSpace.Clear();
        _freedInTransaction.Clear();
        MarkedFree = [.. _committed.MarkedFree];
        NextPageNumber = _committed.NextPageNumber;
        Owned = [.. _committed.Owned];
    }

    /// <summary>An open after a commit: no reader is left, so every page marked free is available.</summary>
    public void Reopen()
    {
        Waiting.Clear();
        Available.Clear();
        Available.UnionWith(MarkedFree);
    }

    public List<(long Page, int Count)> TakeWaiting()
    {
        var waiting = Waiting.ToList();
        Waiting.Clear();
        return waiting;
    }
}
