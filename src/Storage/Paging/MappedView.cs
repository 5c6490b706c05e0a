using Cairn.Pal;

namespace Cairn.Paging;

/// <summary>
/// One read-only mapping of the data file at some size. A grown file gets a new view; the old one
/// stays mapped until no reader of an older environment state can use it (see ResourceReclaimer).
/// </summary>
internal sealed unsafe class MappedView : IDisposable
{
    private readonly PalMapping _mapping;

    public MappedView(PalMapping mapping, long pageCount)
    {
        _mapping = mapping;
        PageCount = pageCount;
        Base = mapping.Pointer;
    }

    public byte* Base { get; }

    public long PageCount { get; }

    /// <summary>Asks the OS to read the whole view ahead of use (asynchronous readahead).</summary>
    public void Prefetch() => _mapping.Prefetch(0, PageCount * StorageConstants.PageSize);

    /// <summary>Reads [offset, offset + length) in now and maps it: touching it then takes no page faults.</summary>
    public void Populate(long offset, long length) => _mapping.Populate(offset, length);

    /// <summary>
    /// Copies pages [<paramref name="pageNumber"/>, + <paramref name="pageCount"/>) as the mapped file has them to
    /// <paramref name="destination"/>; pages past the mapping's end read as zeros (written by no flush yet).
    /// </summary>
    public void CopyPages(long pageNumber, int pageCount, byte* destination)
    {
        for (int i = 0; i < pageCount; i++)
        {
            long page = pageNumber + i;
            byte* target = destination + (long)i * StorageConstants.PageSize;
            if (page < PageCount)
                Buffer.MemoryCopy(Base + page * StorageConstants.PageSize, target, StorageConstants.PageSize, StorageConstants.PageSize);
            else
                new Span<byte>(target, StorageConstants.PageSize).Clear();
        }
    }

    public void Dispose() => _mapping.Dispose();
}
