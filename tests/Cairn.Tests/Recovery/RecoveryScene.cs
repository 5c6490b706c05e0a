using Cairn.Journal.Files;
using Cairn.Opening;
using Cairn.Paging;
using Cairn.Recovery;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn.Tests.Recovery;

/// <summary>
/// What recovery runs over, with no environment around it: a real data file, created and formatted as
/// an open creates one, its header, scratch memory, and a <c>Journals/</c> folder the test fills with
/// journal files of entries in this data file's environment (<see cref="Entries"/>). Everything is
/// removed on dispose, pages recovery handed over included.
/// </summary>
internal sealed unsafe class RecoveryScene : IDisposable
{
    private static readonly TimeSpan s_lockWait = TimeSpan.FromSeconds(5);
    private readonly TestDirectory _directory;
    private readonly List<RecoveryResult> _results = [];

    public RecoveryScene(string name)
    {
        _directory = new TestDirectory(name);
        string dataPath = _directory.File(StorageEnvironment.DataFileName);
        DataFileCreation.EnsureExists(dataPath, s_lockWait);
        DataFile = DataFile.Open(dataPath, s_lockWait);
        var headers = new HeaderStore(DataFile);
        headers.Load();
        Header = headers.Current;
        JournalDirectory = Path.Combine(_directory.Path, JournalFileName.DirectoryName);
        Directory.CreateDirectory(JournalDirectory);
        Entries = new JournalEntryFactory(Header.EnvironmentId);
    }

    public DataFile DataFile { get; }

    /// <summary>The new data file's header: transaction 0, journal position (0, 0).</summary>
    public FileHeader Header { get; }

    public ScratchAllocator Scratch { get; } = new();

    public string JournalDirectory { get; }

    public JournalEntryFactory Entries { get; }

    public string JournalPath(long sequence) => Path.Combine(JournalDirectory, JournalFileName.For(sequence));

    /// <summary>The header after a sync of <paramref name="lastTransactionId"/>, with the journal position that sync recorded.</summary>
    public FileHeader SyncedHeader(long lastTransactionId, long journalSequence, long journalOffset)
        => Header with { LastTransactionId = lastTransactionId, JournalSequence = journalSequence, JournalOffset = journalOffset };

    /// <summary>
    /// Writes journal <paramref name="sequence"/>: the entries back to back from offset 0, then zeros up to
    /// <paramref name="size"/> bytes if that is more. Returns each entry's offset.
    /// </summary>
    public long[] WriteJournal(long sequence, IEnumerable<byte[]> entries, long size = 0)
    {
        var offsets = new List<long>();
        using var file = new FileStream(JournalPath(sequence), FileMode.CreateNew, FileAccess.Write);
        foreach (var entry in entries)
        {
            offsets.Add(file.Position);
            file.Write(entry);
        }
        if (file.Length < size)
            file.SetLength(size);
        return [.. offsets];
    }

    /// <summary>The entries of the given transactions, each writing one page of its own (page 100 + id).</summary>
    public IEnumerable<byte[]> OnePageEntries(params long[] transactionIds)
        => transactionIds.Select(tx => Entries.Build(tx, (100 + tx, (int)tx)));

    public RecoveryResult Recover(FileHeader? header = null, ILogger? logger = null, long budgetBytes = 64 << 20, bool readOnly = false,
        ReplayBuffers? buffers = null)
    {
        var result = JournalRecovery.Run(JournalDirectory, header ?? Header, DataFile, Scratch, budgetBytes, logger ?? NullLogger.Instance,
            readOnly: readOnly, buffers: buffers);
        _results.Add(result);
        return result;
    }

    public void Dispose()
    {
        foreach (var result in _results)
            foreach (var (_, version) in result.Pages)
                Scratch.Free((byte*)version.Pointer, version.PageCount);
        Scratch.Dispose();
        DataFile.Dispose();
        Entries.Dispose();
        _directory.Dispose();
    }
}
