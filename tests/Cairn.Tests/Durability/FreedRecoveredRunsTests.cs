using Cairn.FreeSpace;
using Cairn.Paging;
using Cairn.Recovery;

namespace Cairn.Tests.Durability;

/// <summary>
/// <see cref="FreedRecoveredRuns"/> on its own: recovered runs whose pages the recovered free-space map
/// marks free leave the page table (and scratch memory); runs in use stay; a run that is partly free is
/// damage, reported with the data file and offset, and changes nothing.
/// </summary>
public sealed unsafe class FreedRecoveredRunsTests : IDisposable
{
    private const string DataFile = "/data/cairn.data";
    private readonly ScratchAllocator _scratch = new();

    public void Dispose() => _scratch.Dispose();

    private PageTable Table(params (long PageNumber, int Count)[] runs)
    {
        var builder = PageTable.Empty.ToBuilder();
        foreach (var (pageNumber, count) in runs)
            builder.Set(pageNumber, new PageVersion((nint)_scratch.Allocate(count), 7, count));
        return builder.ToImmutable();
    }

    private static FreeSpaceMap MapWithFree(params (long PageNumber, int Count)[] free)
    {
        var map = FreeSpaceMap.CreateEmpty(directoryPage: 2);
        foreach (var (pageNumber, count) in free)
            map.Release(pageNumber, count);
        return map;
    }

    private void FreeAll(PageTable table)
    {
        foreach (var (_, version) in table)
            _scratch.Free((byte*)version.Pointer, version.PageCount);
    }

    [Fact]
    public void Runs_the_map_marks_free_are_dropped_and_their_memory_freed()
    {
        var table = Table((10, 3), (20, 2), (30, 4), (40, 1));
        long before = _scratch.BytesInUse;

        var kept = FreedRecoveredRuns.Drop(table, MapWithFree((20, 2), (40, 1), (50, 5)), _scratch, DataFile, out int dropped);

        Assert.Equal(2, dropped);
        var starts = new List<long>();
        foreach (var (pageNumber, _) in kept)
            starts.Add(pageNumber);
        Assert.Equal([10L, 30L], starts);
        Assert.Equal(before - 3 * StorageConstants.PageSize, _scratch.BytesInUse);
        FreeAll(kept);
    }

    [Fact]
    public void Nothing_free_returns_the_same_table()
    {
        var table = Table((10, 3), (20, 2));

        var kept = FreedRecoveredRuns.Drop(table, MapWithFree((13, 7), (22, 8)), _scratch, DataFile, out int dropped);

        Assert.Equal(0, dropped);
        Assert.Same(table, kept);
        FreeAll(kept);
    }

    [Fact]
    public void A_run_partly_free_is_damage_and_changes_nothing()
    {
        var table = Table((10, 3), (30, 4));
        long before = _scratch.BytesInUse;

        var error = Assert.Throws<StorageFormatException>(() => FreedRecoveredRuns.Drop(table, MapWithFree((10, 3), (32, 2)), _scratch, DataFile, out _));

        Assert.Equal(DataFile, error.FilePath);
        Assert.Equal(30L * StorageConstants.PageSize, error.Offset);
        Assert.Contains("2 free", error.Message);
        Assert.Equal(before, _scratch.BytesInUse);
        FreeAll(table);
    }
}
