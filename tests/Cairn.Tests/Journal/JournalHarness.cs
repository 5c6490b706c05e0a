using Cairn.Diagnostics;
using Cairn.Journal;
using Cairn.Journal.Files;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn.Tests.Journal;

/// <summary>
/// A <see cref="WriteAheadJournal"/> over a folder of the test's, wired as an open wires it (inventory,
/// spares, writer) but with nothing else of an environment. Files are 16 KiB (<see cref="FileSize"/>):
/// four empty entries, or one page entry and one empty one. Spares are off unless asked for, so that
/// every spare a test sees is one it prepared itself (<see cref="SpareJournals.PrepareNow"/>).
/// </summary>
internal sealed unsafe class JournalHarness : IDisposable
{
    public const long FileSize = 16 * 1024;

    public JournalHarness(string directory, Guid environmentId, bool prepareSpares = false, JournalFileSet? files = null,
        ILogger? logger = null, long fileSize = FileSize, long initialFileSize = 0)
    {
        Directory = directory;
        logger ??= NullLogger.Instance;
        Entries = new JournalEntryFactory(environmentId);
        Inventory = new JournalInventory(directory, new JournalSizing(initialFileSize > 0 ? initialFileSize : fileSize, fileSize), files ?? JournalFileSet.Empty(1), logger);
        Spares = new SpareJournals(Inventory, logger, prepareSpares);
        Journal = new WriteAheadJournal(Inventory, Spares, IoStats, logger, TimeSpan.FromHours(1));
    }

    public string Directory { get; }

    public JournalEntryFactory Entries { get; }

    public JournalInventory Inventory { get; }

    public SpareJournals Spares { get; }

    public WriteAheadJournal Journal { get; }

    public IoStats IoStats { get; } = new();

    public string JournalPath(long sequence) => Path.Combine(Directory, JournalFileName.For(sequence));

    public string RecyclablePath(long number) => Path.Combine(Directory, JournalFileName.Recyclable(number));

    /// <summary>Appends the entry of <paramref name="transactionId"/> writing the given pages (none: a 4 KiB entry).</summary>
    public JournalPosition Append(long transactionId, params (long PageNumber, int Seed)[] pages)
    {
        long length = Entries.Build(transactionId, pages).Length;
        return Journal.Append(Entries.Pointer, length, transactionId, transactionId, transactionCount: 1);
    }

    /// <summary>Appends one page entry (12 KiB) for each transaction: with 16 KiB files, one journal each.</summary>
    public void AppendOnePageEach(params long[] transactionIds)
    {
        foreach (long transactionId in transactionIds)
            Append(transactionId, (100 + transactionId, (int)transactionId));
    }

    /// <summary>
    /// Appends empty entries of transactions 1 to 8: 1 to 4 fill journal 1, which a sync of 4 then recycles;
    /// 5 to 8 fill journal 2. So the next append switches to journal 3, journal 1's file renamed, with
    /// transactions 1 to 4 still in it.
    /// </summary>
    public void FillTwoJournalsRecyclingTheFirst()
    {
        for (long tx = 1; tx <= 5; tx++)
            Append(tx);
        Assert.Equal((0, 1), Journal.Release(4));
        for (long tx = 6; tx <= 8; tx++)
            Append(tx);
    }

    /// <summary>What the entry reader finds at <paramref name="offset"/> of the file on disk.</summary>
    public static JournalEntryValidation EntryAt(string path, long offset)
    {
        var bytes = File.ReadAllBytes(path);
        fixed (byte* p = bytes)
            return JournalEntryReader.Validate(p + offset, bytes.Length - offset, offset);
    }

    /// <summary>The transaction ids of the valid entries at each 4 KiB block of the file (0 where none is).</summary>
    public static long[] TransactionsByBlock(string path)
    {
        long blocks = new FileInfo(path).Length / JournalEntryHeader.Alignment;
        var ids = new long[blocks];
        for (long block = 0; block < blocks; block++)
        {
            var found = EntryAt(path, block * JournalEntryHeader.Alignment);
            ids[block] = found.IsValid ? found.Header.TransactionId : 0;
        }
        return ids;
    }

    public void Dispose()
    {
        Journal.Dispose();
        Entries.Dispose();
    }
}
