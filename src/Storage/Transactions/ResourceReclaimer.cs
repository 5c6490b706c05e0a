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
    /// <summary>Scratch versions the flusher moved to the data file, or a replica's apply replaced: freed by epoch only.</summary>
    public readonly List<(nint Pointer, int PageCount)> ScratchVersions = [];
    /// <summary>Versions a commit replaced: freed by epoch, or earlier once no state that still has them is held (<see cref="SupersededVersion"/>).</summary>
    public readonly List<SupersededVersion> Superseded = [];
    public readonly List<(long PageNumber, int Count)> FreedPages = [];
    /// <summary>Page-table arrays the published table no longer has (older tables still do): back to <see cref="NodeArrayPool"/>.</summary>
    public readonly List<object> TableArrays = [];
    public MappedView? View;
    /// <summary>The epoch that retired these (set by <see cref="ResourceReclaimer.Retire"/>); tells a recycled object from the one a sweep remembered.</summary>
    public long Epoch;
    /// <summary>How many sweeps looked at <see cref="Superseded"/> (<see cref="ResourceReclaimer.SweepSuperseded"/>).</summary>
    public int Sweeps;

    public bool IsEmpty => ScratchVersions.Count == 0 && Superseded.Count == 0 && FreedPages.Count == 0 && TableArrays.Count == 0 && View is null;

    public void Clear()
    {
        ScratchVersions.Clear();
        Superseded.Clear();
        Sweeps = 0;
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
    // Retired resources with superseded versions that sweeps have not given up on yet, with the epoch each was
    // retired at (a reclaimed object is recycled and may come back under another epoch: then the entry is stale).
    private readonly List<(RetiredResources Resources, long Epoch)> _sweepable = [];

    /// <summary>
    /// How many sweeps look at a retired set's superseded versions before leaving them to the epoch rule: a version held
    /// by a long reader is not looked at again on every commit, and the writer's own pin, which holds what its commit
    /// replaced at the publication, has moved by the second or third.
    /// </summary>
    public const int MaxSweeps = 4;

    /// <summary>Whether <see cref="SweepSuperseded"/> has anything to look at.</summary>
    public bool HasSweepable => _sweepable.Count != 0;

    /// <summary>Pages freed but not yet reusable because a reader may still see them, or the writer has not taken them yet (for the verifier).</summary>
    public IEnumerable<(long PageNumber, int Count)> WaitingPages
        => _pending.SelectMany(p => p.Resources.FreedPages).Concat(_releasable);

    public RetiredResources Rent() => _recycled.TryPop(out var r) ? r : new RetiredResources();

    /// <summary>Registers what publishing the state of <paramref name="epoch"/> retired.</summary>
    public void Retire(long epoch, RetiredResources resources)
    {
        if (resources.IsEmpty)
        {
            _recycled.Push(resources);
            return;
        }
        resources.Epoch = epoch;
        _pending.Enqueue((epoch, resources));
        if (resources.Superseded.Count != 0)
            _sweepable.Add((resources, epoch));
    }

    /// <summary>
    /// Frees every retired superseded version that no state in <paramref name="reachingTransactions"/> (sorted
    /// ascending: the transactions of the states readers hold and of the states the durable watermark may still stop
    /// at) has: a version lives in exactly the states of transactions <c>CreatedBy</c> to <c>ReplacedBy - 1</c>, so
    /// with none of those held, nothing can reach it, whatever the oldest reader's epoch. The memory goes back to the
    /// allocator at once, warm, instead of after the oldest reader.
    /// </summary>
    public void SweepSuperseded(ReadOnlySpan<long> reachingTransactions)
    {
        int kept = 0;
        for (int i = 0; i < _sweepable.Count; i++)
        {
            var (resources, epoch) = _sweepable[i];
            if (resources.Epoch != epoch || resources.Superseded.Count == 0)
                continue; // reclaimed by epoch since, or emptied by earlier sweeps
            var versions = resources.Superseded;
            for (int v = versions.Count - 1; v >= 0; v--)
            {
                if (versions[v].IsReachedByAny(reachingTransactions))
                    continue;
                scratch.Free((byte*)versions[v].Pointer, versions[v].PageCount);
                versions[v] = versions[^1];
                versions.RemoveAt(versions.Count - 1);
            }
            if (versions.Count != 0 && ++resources.Sweeps < MaxSweeps)
                _sweepable[kept++] = (resources, epoch);
        }
        _sweepable.RemoveRange(kept, _sweepable.Count - kept);
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
            foreach (var version in resources.Superseded)
                scratch.Free((byte*)version.Pointer, version.PageCount);
            foreach (object array in resources.TableArrays)
                NodeArrayPool.Return(array);
            _releasable.AddRange(resources.FreedPages);
            resources.View?.Dispose();
            resources.Clear();
            resources.Epoch = 0;
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
        _sweepable.Clear();
    }
}
