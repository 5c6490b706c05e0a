using Cairn.FreeSpace;
using Cairn.Paging;

namespace Cairn.Transactions;

/// <summary>
/// What publishing a state made unreachable for new readers, freed once no older reader remains:
/// superseded scratch page versions, old mappings of a grown file, and freed page numbers (which
/// only then become reusable, so no reader can see a page change under it).
/// </summary>
internal sealed class RetiredResources
{
    public readonly List<(nint Pointer, int PageCount)> ScratchVersions = [];
    public readonly List<(long PageNumber, int Count)> FreedPages = [];
    /// <summary>Page-table arrays the published table no longer has (older tables still do): back to <see cref="NodeArrayPool"/>.</summary>
    public readonly List<object> TableArrays = [];
    public MappedView? View;

    public bool IsEmpty => ScratchVersions.Count == 0 && FreedPages.Count == 0 && TableArrays.Count == 0 && View is null;

    public void Clear()
    {
        ScratchVersions.Clear();
        FreedPages.Clear();
        TableArrays.Clear();
        View = null;
    }
}

/// <summary>
/// Keeps retired resources by the epoch that retired them and frees them when safe. Both the writer
/// and the background flusher publish states, so every call happens under the environment's state
/// lock. Memory and mappings are freed by whoever reclaims; freed page numbers only become
/// allocatable through <see cref="ReleaseFreedPages"/>, which the writer calls, because the
/// free-space mirror belongs to the write transaction.
/// </summary>
internal sealed unsafe class ResourceReclaimer(ScratchAllocator scratch)
{
    private readonly Queue<(long Epoch, RetiredResources Resources)> _pending = new();
    private readonly Stack<RetiredResources> _recycled = new();
    private readonly List<(long PageNumber, int Count)> _releasable = [];

    /// <summary>Pages freed but not yet reusable because a reader may still see them, or the writer has not taken them yet (for the verifier).</summary>
    public IEnumerable<(long PageNumber, int Count)> WaitingPages
        => _pending.SelectMany(p => p.Resources.FreedPages).Concat(_releasable);

    public RetiredResources Rent() => _recycled.TryPop(out var r) ? r : new RetiredResources();

    /// <summary>Registers what publishing the state of <paramref name="epoch"/> retired.</summary>
    public void Retire(long epoch, RetiredResources resources)
    {
        if (resources.IsEmpty)
            _recycled.Push(resources);
        else
            _pending.Enqueue((epoch, resources));
    }

    /// <summary>Frees everything retired at or before <paramref name="oldestReaderEpoch"/>: no reader can reach it.</summary>
    public void Reclaim(long oldestReaderEpoch)
    {
        while (_pending.TryPeek(out var entry) && entry.Epoch <= oldestReaderEpoch)
        {
            _pending.Dequeue();
            var resources = entry.Resources;
            foreach (var (pointer, count) in resources.ScratchVersions)
                scratch.Free((byte*)pointer, count);
            foreach (object array in resources.TableArrays)
                NodeArrayPool.Return(array);
            _releasable.AddRange(resources.FreedPages);
            resources.View?.Dispose();
            resources.Clear();
            _recycled.Push(resources);
        }
    }

    /// <summary>Makes reclaimed page numbers allocatable. Only the writer (which owns the mirror) calls this.</summary>
    public void ReleaseFreedPages(FreeSpaceMap freeSpace)
    {
        foreach (var (page, count) in _releasable)
            freeSpace.Release(page, count);
        _releasable.Clear();
    }

    /// <summary>At dispose: no reader is left, so everything goes.</summary>
    public void ReclaimAll()
    {
        Reclaim(long.MaxValue);
        _releasable.Clear();
    }
}
