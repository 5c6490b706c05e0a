using System.Runtime.InteropServices;
using Cairn.FreeSpace;
using Cairn.Hashing;
using Cairn.Paging;

namespace Cairn.Tests.FreeSpace;

/// <summary>
/// The pages a <see cref="FreeSpaceMap"/> keeps its bitmap on, in memory, with a write transaction's
/// copy-on-write: <see cref="ModifyPage"/> copies a committed page, <see cref="Commit"/> makes the
/// copies the committed pages and <see cref="Discard"/> drops them, so a rolled-back transaction's
/// bitmap edits vanish as they do in the engine. Touching a page nobody created throws, and a
/// committed page written in place is caught at the next commit.
/// </summary>
internal sealed unsafe class MemoryFreeSpacePages : IFreeSpacePages, IDisposable
{
    private const int PageSize = StorageConstants.PageSize;

    private readonly Dictionary<long, nint> _committed = [];
    private readonly Dictionary<long, ulong> _committedHash = [];
    private readonly Dictionary<long, nint> _private = [];

    /// <summary>Pages this transaction created (rather than copied): new bitmap sections.</summary>
    public List<long> CreatedInTransaction { get; } = [];

    /// <summary>Committed pages this transaction took a private copy of.</summary>
    public IEnumerable<long> ModifiedInTransaction => _private.Keys.Except(CreatedInTransaction);

    public byte* GetPage(long pageNumber)
    {
        if (_private.TryGetValue(pageNumber, out nint page) || _committed.TryGetValue(pageNumber, out page))
            return (byte*)page;
        throw new InvalidOperationException($"GetPage({pageNumber}): no such page.");
    }

    public byte* ModifyPage(long pageNumber)
    {
        if (_private.TryGetValue(pageNumber, out nint copy))
            return (byte*)copy;
        if (!_committed.TryGetValue(pageNumber, out nint committed))
            throw new InvalidOperationException($"ModifyPage({pageNumber}): no such page.");
        byte* page = (byte*)NativeMemory.Alloc(PageSize);
        Buffer.MemoryCopy((byte*)committed, page, PageSize, PageSize);
        _private[pageNumber] = (nint)page;
        return page;
    }

    public byte* CreatePages(long pageNumber, int count)
    {
        if (count != 1)
            throw new InvalidOperationException($"CreatePages({pageNumber}, {count}): the map creates single pages only.");
        if (_private.ContainsKey(pageNumber) || _committed.ContainsKey(pageNumber))
            throw new InvalidOperationException($"CreatePages({pageNumber}): the page exists.");
        byte* page = (byte*)NativeMemory.AllocZeroed(PageSize);
        ((PageHeader*)page)->PageNumber = pageNumber;
        _private[pageNumber] = (nint)page;
        CreatedInTransaction.Add(pageNumber);
        return page;
    }

    public void Commit()
    {
        foreach (var (pageNumber, committed) in _committed)
        {
            if (Hash((byte*)committed) != _committedHash[pageNumber])
                throw new InvalidOperationException($"Committed page {pageNumber} was written in place (not through ModifyPage).");
        }
        foreach (var (pageNumber, page) in _private)
        {
            if (_committed.Remove(pageNumber, out nint old))
                NativeMemory.Free((void*)old);
            _committed[pageNumber] = page;
            _committedHash[pageNumber] = Hash((byte*)page);
        }
        _private.Clear();
        CreatedInTransaction.Clear();
    }

    public void Discard()
    {
        foreach (nint page in _private.Values)
            NativeMemory.Free((void*)page);
        _private.Clear();
        CreatedInTransaction.Clear();
    }

    public void Dispose()
    {
        Discard();
        foreach (nint page in _committed.Values)
            NativeMemory.Free((void*)page);
        _committed.Clear();
    }

    private static ulong Hash(byte* page) => Checksums.Compute(page, PageSize, seed: 0);
}
