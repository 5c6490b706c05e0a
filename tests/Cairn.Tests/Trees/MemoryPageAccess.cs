using System.Runtime.InteropServices;
using Cairn.Paging;

namespace Cairn.Tests.Trees;

/// <summary>
/// An in-memory <see cref="IPageAccess"/> with the copy-on-write behaviour of a write transaction:
/// <see cref="ModifyPage"/> copies a committed page elsewhere, so tree code that keeps reading a stale
/// pointer sees old bytes. <see cref="Commit"/> makes the copies the committed pages and checks that no
/// committed page was written in place, and that every modified page changed only inside the ranges its
/// writes recorded (<see cref="DirtyRangeChecks.Verify"/>, counted in <see cref="CheckedPages"/>). Misuse (double free, wrong run length, touching an
/// unallocated page, modifying an overflow run) throws. Freed memory is poisoned. Allocation-free in
/// steady state when constructed with enough capacity.
/// </summary>
internal sealed unsafe class MemoryPageAccess : IPageAccess, IDisposable
{
    private const int PageSize = StorageConstants.PageSize;
    private const byte Poison = 0xDB;

    // Indexed by page number. A run start has its length in _runLength; pages inside a run have -1.
    private nint[] _committed;
    private nint[] _dirty;
    private ulong[] _committedHash;
    private int[] _committedLength;
    private int[] _runLength;
    // The recorded write ranges of each dirty page (a DirtyRanges* in _rangeStore), indexed by page number.
    private nint[] _ranges;
    private readonly DirtyRangeStore _rangeStore = new();
    private long _nextPage = 1; // page 0 stands for the file header and is never handed out
    private readonly Stack<long> _reusable;
    private readonly List<(long First, int Count)> _freedThisTransaction;
    private readonly List<long> _dirtyPages;
    private readonly List<IntPtr> _graveyard;

    public MemoryPageAccess(int capacity = 1024)
    {
        _committed = new nint[capacity];
        _dirty = new nint[capacity];
        _committedHash = new ulong[capacity];
        _committedLength = new int[capacity];
        _runLength = new int[capacity];
        _ranges = new nint[capacity];
        _reusable = new Stack<long>(capacity);
        _freedThisTransaction = new List<(long, int)>(capacity);
        _dirtyPages = new List<long>(capacity);
        _graveyard = new List<IntPtr>(capacity);
    }

    public bool IsWritable { get; set; } = true;

    /// <summary>Pages currently allocated (overflow runs count every page).</summary>
    public long AllocatedPageCount { get; private set; }

    public long ModifyCalls { get; private set; }

    /// <summary>Modified pages whose changes <see cref="Commit"/> found inside their recorded ranges.</summary>
    public long CheckedPages { get; private set; }

    /// <summary>The recorded ranges of a page modified or allocated since the last <see cref="Commit"/>.</summary>
    public DirtyRanges* RangesOf(long pageNumber) => (DirtyRanges*)_ranges[pageNumber];

    public byte* GetPage(long pageNumber)
    {
        CheckRunStart(pageNumber, "GetPage");
        nint dirty = _dirty[pageNumber];
        return (byte*)(dirty != 0 ? dirty : _committed[pageNumber]);
    }

    public WritablePage ModifyPage(long pageNumber)
    {
        CheckWritable();
        CheckRunStart(pageNumber, "ModifyPage");
        if (_runLength[pageNumber] != 1)
            throw new InvalidOperationException($"ModifyPage({pageNumber}) on a {_runLength[pageNumber]}-page overflow run.");
        ModifyCalls++;
        if (_dirty[pageNumber] != 0)
            return new WritablePage((byte*)_dirty[pageNumber], (DirtyRanges*)_ranges[pageNumber]);
        byte* dirty = (byte*)NativeMemory.Alloc(PageSize);
        Buffer.MemoryCopy((byte*)_committed[pageNumber], dirty, PageSize, PageSize);
        _dirty[pageNumber] = (nint)dirty;
        _dirtyPages.Add(pageNumber);
        DirtyRanges* ranges = _rangeStore.Rent();
        ranges->StartWithHeader();
        _ranges[pageNumber] = (nint)ranges;
        return new WritablePage(dirty, ranges);
    }

    public WritablePage AllocatePages(int count, out long pageNumber)
    {
        CheckWritable();
        if (count < 1)
            throw new ArgumentOutOfRangeException(nameof(count));
        if (count == 1 && _reusable.Count > 0)
        {
            pageNumber = _reusable.Pop();
        }
        else
        {
            pageNumber = _nextPage;
            _nextPage += count;
            EnsureCapacity(_nextPage);
        }
        byte* run = (byte*)NativeMemory.AllocZeroed((nuint)count * PageSize);
        ((PageHeader*)run)->PageNumber = pageNumber;
        _dirty[pageNumber] = (nint)run;
        _committed[pageNumber] = 0;
        _runLength[pageNumber] = count;
        for (long p = pageNumber + 1; p < pageNumber + count; p++)
            _runLength[p] = -1;
        _dirtyPages.Add(pageNumber);
        AllocatedPageCount += count;
        DirtyRanges* ranges = _rangeStore.Rent();
        ranges->SetWhole();
        _ranges[pageNumber] = (nint)ranges;
        return new WritablePage(run, ranges);
    }

    public void FreePages(long pageNumber, int count)
    {
        CheckWritable();
        if (pageNumber <= 0 || pageNumber >= _nextPage)
            throw new InvalidOperationException($"FreePages({pageNumber}, {count}): the page was never allocated.");
        int length = _runLength[pageNumber];
        if (length == 0)
            throw new InvalidOperationException($"FreePages({pageNumber}, {count}): the page is already free (double free).");
        if (length < 0)
            throw new InvalidOperationException($"FreePages({pageNumber}, {count}): the page is inside an overflow run, not its start.");
        if (length != count)
            throw new InvalidOperationException($"FreePages({pageNumber}, {count}): the run has {length} pages.");

        byte* dirty = (byte*)_dirty[pageNumber];
        if (dirty != null)
        {
            // Readers of this transaction must not see the bytes any more; the memory itself stays
            // mapped until Commit so a stale pointer reads poison instead of crashing the test host.
            NativeMemory.Fill(dirty, (nuint)count * PageSize, Poison);
            _graveyard.Add((IntPtr)dirty);
            _dirty[pageNumber] = 0;
        }
        for (long p = pageNumber; p < pageNumber + count; p++)
            _runLength[p] = 0;
        _freedThisTransaction.Add((pageNumber, count));
        AllocatedPageCount -= count;
    }

    /// <summary>
    /// Ends the "transaction": checks that no committed page was written through a GetPage pointer and
    /// that modified pages changed only inside their recorded ranges, promotes the modified copies and
    /// makes freed single pages reusable.
    /// </summary>
    public void Commit()
    {
        foreach (long p in _dirtyPages)
        {
            if (_dirty[p] != 0 && _committed[p] != 0)
            {
                DirtyRangeChecks.Verify(p, (byte*)_dirty[p], (byte*)_committed[p], _runLength[p] * PageSize, (DirtyRanges*)_ranges[p]);
                CheckedPages++;
            }
        }
        for (long p = 1; p < _nextPage; p++)
        {
            if (_committed[p] != 0 && Hash((byte*)_committed[p], _committedLength[p]) != _committedHash[p])
                throw new InvalidOperationException($"Committed page {p} was written in place (not through ModifyPage).");
        }
        foreach ((long first, int count) in _freedThisTransaction)
        {
            if (_committed[first] != 0)
            {
                _graveyard.Add(_committed[first]);
                _committed[first] = 0;
            }
            for (long p = first + count - 1; p >= first; p--)
            {
                if (_runLength[p] == 0)
                    _reusable.Push(p);
            }
        }
        _freedThisTransaction.Clear();
        foreach (long p in _dirtyPages)
        {
            nint dirty = _dirty[p];
            if (dirty == 0)
                continue;
            if (_committed[p] != 0)
                _graveyard.Add(_committed[p]);
            _committed[p] = dirty;
            _dirty[p] = 0;
            _committedLength[p] = _runLength[p];
            _committedHash[p] = Hash((byte*)dirty, _runLength[p]);
        }
        _dirtyPages.Clear();
        Array.Clear(_ranges);
        _rangeStore.Clear();
        foreach (IntPtr memory in _graveyard)
            NativeMemory.Free((void*)memory);
        _graveyard.Clear();
    }

    private static ulong Hash(byte* data, int pages)
    {
        var words = new ReadOnlySpan<ulong>(data, pages * PageSize / sizeof(ulong));
        ulong hash = 0xcbf29ce484222325;
        foreach (ulong word in words)
            hash = (hash ^ word) * 0x100000001b3 + (hash >> 29);
        return hash;
    }

    private void CheckRunStart(long pageNumber, string operation)
    {
        if (pageNumber <= 0 || pageNumber >= _nextPage || _runLength[pageNumber] <= 0)
            throw new InvalidOperationException($"{operation}({pageNumber}): the page is not allocated (or not the start of a run).");
    }

    private void CheckWritable()
    {
        if (!IsWritable)
            throw new InvalidOperationException("The page access is read-only.");
    }

    private void EnsureCapacity(long pages)
    {
        if (pages <= _runLength.Length)
            return;
        int size = (int)Math.Max(pages, _runLength.Length * 2L);
        Array.Resize(ref _committed, size);
        Array.Resize(ref _dirty, size);
        Array.Resize(ref _committedHash, size);
        Array.Resize(ref _committedLength, size);
        Array.Resize(ref _runLength, size);
        Array.Resize(ref _ranges, size);
    }

    public void Dispose()
    {
        for (long p = 1; p < _nextPage && p < _runLength.Length; p++)
        {
            if (_committed[p] != 0)
                NativeMemory.Free((void*)_committed[p]);
            if (_dirty[p] != 0)
                NativeMemory.Free((void*)_dirty[p]);
            _committed[p] = 0;
            _dirty[p] = 0;
        }
        foreach (IntPtr memory in _graveyard)
            NativeMemory.Free((void*)memory);
        _graveyard.Clear();
    }
}
