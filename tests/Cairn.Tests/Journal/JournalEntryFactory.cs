using Cairn.Journal;
using Cairn.Paging;

namespace Cairn.Tests.Journal;

/// <summary>
/// Real journal entries for tests that write journal files: each transaction writes whole pages of
/// random bytes, stamped as a commit stamps them (so recovery validates what it rebuilds), built by the
/// engine's <see cref="JournalEntryWriter"/> into an aligned buffer that can go straight to an O_DIRECT
/// append. An entry with no page is one 4 KiB block; one page makes it three.
/// </summary>
internal sealed unsafe class JournalEntryFactory(Guid environmentId) : IDisposable
{
    public const int EmptyEntrySize = JournalEntryHeader.Alignment;
    public const int OnePageEntrySize = 3 * JournalEntryHeader.Alignment;

    private readonly JournalEntryWriter _writer = new();
    private readonly JournalBuffer _buffer = new();

    public Guid EnvironmentId => environmentId;

    /// <summary>The entry built last, 4 KiB aligned; valid until the next <see cref="Build"/>.</summary>
    public byte* Pointer => _buffer.Pointer;

    /// <summary>Builds the entry of <paramref name="transactionId"/> writing one page image per (page number, seed).</summary>
    public byte[] Build(long transactionId, params (long PageNumber, int Seed)[] pages)
    {
        var changes = pages.Select(p => new PageChange(p.PageNumber, 1, null, PageImage(p.PageNumber, p.Seed))).ToList();
        return JournalTestEntries.Build(_writer, _buffer, transactionId, environmentId, changes, nextPageNumber: 1000);
    }

    /// <summary>
    /// Stamps <paramref name="entry"/> as a journal writer that puts it in a shared write does
    /// (<see cref="JournalEntryHeader.StampWrite"/>) and returns it.
    /// </summary>
    public static byte[] Stamp(byte[] entry, Guid writtenBy, long offsetInWrite)
    {
        fixed (byte* p = entry)
            JournalEntryHeader.StampWrite(p, writtenBy, offsetInWrite);
        return entry;
    }

    /// <summary>A page of random bytes (the same for the same seed) carrying its number and checksum.</summary>
    public static byte[] PageImage(long pageNumber, int seed)
    {
        var page = new byte[StorageConstants.PageSize];
        new Random(seed).NextBytes(page);
        fixed (byte* p = page)
        {
            ((PageHeader*)p)->Flags = PageFlags.Leaf;
            PageChecksum.Stamp(p, pageNumber, 1);
        }
        return page;
    }

    public void Dispose()
    {
        _writer.Dispose();
        _buffer.Dispose();
    }
}
