using System.Runtime.CompilerServices;
using Cairn.FreeSpace;
using Cairn.Paging;
using Cairn.Trees;

namespace Cairn.Transactions;

/// <summary>
/// Page access for one transaction. A reader sees exactly its snapshot: the state's page table for
/// versions still in scratch memory, the data file for the rest. The writer additionally keeps its
/// own modified copies (same page numbers, in scratch memory) until commit publishes them.
/// </summary>
internal sealed unsafe class LowLevelTransaction : IPageAccess, IFreeSpacePages
{
    private readonly DataFile _dataFile;
    private readonly ScratchAllocator _scratch;
    private readonly FreeSpaceMap? _freeSpace;
    private readonly DirtyPageMap _dirty;
    private readonly List<(long PageNumber, int Count)> _freed;
    private EnvironmentState _state;
    private long _nextPageNumber;

    // Readers never write to these (every mutation checks IsWritable first), so they can share them.
    private static readonly DirtyPageMap s_readerDirtyPages = new();
    private static readonly List<(long, int)> s_readerFreedPages = [];

    /// <summary>
    /// A page (run) this transaction created or modified, private to it until commit. <see cref="IsNew"/>:
    /// allocated by this transaction, so it has no previous version to diff its journal record against.
    /// <see cref="Ranges"/>: a <see cref="DirtyRanges"/>* in the map's store, the bytes written since the copy
    /// (a new run's is whole).
    /// </summary>
    internal readonly record struct DirtyRun(nint Pointer, int PageCount, bool IsNew, nint Ranges);

    private LowLevelTransaction(DataFile dataFile, ScratchAllocator scratch, EnvironmentState state, FreeSpaceMap? freeSpace,
        DirtyPageMap? dirty, List<(long, int)>? freed)
    {
        _dataFile = dataFile;
        _scratch = scratch;
        _state = state;
        _freeSpace = freeSpace;
        _dirty = dirty ?? s_readerDirtyPages;
        _freed = freed ?? s_readerFreedPages;
        _nextPageNumber = state.NextPageNumber;
        RootTree = state.RootTree;
        IsWritable = freeSpace is not null;
    }

    public static LowLevelTransaction ForReading(DataFile dataFile, ScratchAllocator scratch, EnvironmentState state)
        => new(dataFile, scratch, state, freeSpace: null, dirty: null, freed: null);

    /// <summary>The writer reuses one dictionary and list across transactions: no allocation per commit.</summary>
    public static LowLevelTransaction ForWriting(DataFile dataFile, ScratchAllocator scratch, EnvironmentState state,
        FreeSpaceMap freeSpace, DirtyPageMap dirty, List<(long, int)> freed)
        => new(dataFile, scratch, state, freeSpace, dirty, freed);

    public bool IsWritable { get; }

    public EnvironmentState State => _state;

    public long NextPageNumber => _nextPageNumber;

    /// <summary>The root tree's metadata as this transaction has it (the writer updates it).</summary>
    public TreeState RootTree;

    /// <summary>Where the data starts as of this transaction: what its journal entry records and its state publishes.</summary>
    public RootRecord Root => new(_nextPageNumber, _state.FreeSpaceDirectoryPage, RootTree);

    public DirtyPageMap DirtyPages => _dirty;

    public List<(long PageNumber, int Count)> FreedPages => _freed;

    /// <summary>Dirty pages (counting every page of a run) this transaction holds: what its commit will carry.</summary>
    public long DirtyPageTotal { get; private set; }

    /// <summary>
    /// The merger's writer: swaps the state this transaction reads through for the published state of
    /// the transaction it was opened on top of, which shows the same pages (some now in the data file
    /// instead of scratch memory). Its own changes, next page number and root stay as they are.
    /// </summary>
    public void Rebase(EnvironmentState published) => _state = published;

    /// <summary>
    /// Starts the next transaction of a writer that keeps this object from commit to commit (the merger's): on
    /// <paramref name="state"/>, with nothing dirty. Its dirty-page dictionary and freed list must already be empty
    /// (committed, published or discarded): they are the same reused collections.
    /// </summary>
    public void ReopenForWriting(EnvironmentState state)
    {
        EnsureWritable();
        if (_dirty.Count != 0 || _freed.Count != 0)
            throw new InvalidOperationException("A write transaction was reopened while its previous changes were still held.");
        Rebind(state);
        DirtyPageTotal = 0;
    }

    /// <summary>Moves a reader to a newer state (used when a pooled reader is reused).</summary>
    public void Rebind(EnvironmentState state)
    {
        _state = state;
        _nextPageNumber = state.NextPageNumber;
        RootTree = state.RootTree;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public byte* GetPage(long pageNumber)
    {
        if (_dirty.Count != 0 && _dirty.TryGetValue(pageNumber, out var run))
            return (byte*)run.Pointer;
        if (_state.Pages.TryGet(pageNumber, out var version))
            return (byte*)version.Pointer;
        return _dataFile.GetPage(_state.View, pageNumber);
    }

    /// <summary>The page as the state this transaction started from has it, ignoring this transaction's own changes.</summary>
    public byte* GetCommittedPage(long pageNumber)
    {
        if (_state.Pages.TryGet(pageNumber, out var version))
            return (byte*)version.Pointer;
        return _dataFile.GetPage(_state.View, pageNumber);
    }

    public WritablePage ModifyPage(long pageNumber)
    {
        EnsureWritable();
        if (_dirty.TryGetValue(pageNumber, out var run))
            return new WritablePage((byte*)run.Pointer, (DirtyRanges*)run.Ranges);
        byte* committed = GetPage(pageNumber);
        int count = PageChecksum.RunLength(committed);
        byte* copy = _scratch.Allocate(count);
        Buffer.MemoryCopy(committed, copy, (long)count * StorageConstants.PageSize, (long)count * StorageConstants.PageSize);
        DirtyRanges* ranges = RentRanges();
        ranges->StartWithHeader();
        _dirty[pageNumber] = new DirtyRun((nint)copy, count, IsNew: false, (nint)ranges);
        DirtyPageTotal += count;
        return new WritablePage(copy, ranges);
    }

    /// <summary>The free-space map writes its pages without recording where: they are diffed whole (a few per commit).</summary>
    byte* IFreeSpacePages.ModifyPage(long pageNumber)
    {
        var page = ModifyPage(pageNumber);
        page.WroteAnywhere();
        return page.Bytes;
    }

    public WritablePage AllocatePages(int count, out long pageNumber)
    {
        EnsureWritable();
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        pageNumber = _freeSpace!.Allocate(this, count, ref _nextPageNumber);
        return CreateRun(pageNumber, count);
    }

    /// <summary>A zeroed page run at a number the caller has already reserved.</summary>
    public byte* CreatePages(long pageNumber, int count) => CreateRun(pageNumber, count).Bytes;

    /// <summary>A new run: no previous version, so its journal record does not use its ranges (kept whole).</summary>
    public WritablePage CreateRun(long pageNumber, int count)
    {
        byte* page = _scratch.AllocateZeroed(count);
        ((PageHeader*)page)->PageNumber = pageNumber;
        DirtyRanges* ranges = RentRanges();
        ranges->SetWhole();
        _dirty[pageNumber] = new DirtyRun((nint)page, count, IsNew: true, (nint)ranges);
        DirtyPageTotal += count;
        return new WritablePage(page, ranges);
    }

    /// <summary>A range set for a run about to be added; an empty map has none in use, so the store starts over.</summary>
    private DirtyRanges* RentRanges()
    {
        if (_dirty.Count == 0)
            _dirty.Ranges.Clear();
        return _dirty.Ranges.Rent();
    }

    public void FreePages(long pageNumber, int count)
    {
        EnsureWritable();
        _freeSpace!.Free(this, pageNumber, count);
        _freed.Add((pageNumber, count));
        if (_dirty.Remove(pageNumber, out var run))
        {
            _scratch.Free((byte*)run.Pointer, run.PageCount);
            DirtyPageTotal -= run.PageCount;
        }
    }

    /// <summary>Stamps page numbers and checksums on everything this transaction wrote.</summary>
    public void StampDirtyPages()
    {
        foreach (var (pageNumber, run) in _dirty)
            PageChecksum.Stamp((byte*)run.Pointer, pageNumber, run.PageCount);
    }

    /// <summary>Frees every private copy: the transaction leaves no trace.</summary>
    public void DiscardDirtyPages()
    {
        foreach (var run in _dirty.Values)
            _scratch.Free((byte*)run.Pointer, run.PageCount);
        _dirty.Clear();
        _freed.Clear();
        DirtyPageTotal = 0;
    }

    private void EnsureWritable()
    {
        if (!IsWritable)
            throw new ReadOnlyTransactionException();
    }
}
