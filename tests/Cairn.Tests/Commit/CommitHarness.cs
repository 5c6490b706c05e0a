using System.Text;
using Cairn.Commit;
using Cairn.Diagnostics;
using Cairn.Errors;
using Cairn.FreeSpace;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Opening;
using Cairn.Paging;
using Cairn.Tests.Support;
using Cairn.Transactions;
using Cairn.Trees;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn.Tests.Commit;

/// <summary>
/// A <see cref="CommitPipeline"/> wired as the environment wires it, with no environment around it: a freshly
/// formatted data file, its first state, the free-space map loaded from it, a real journal and a state
/// publisher. The test plays the writer (<see cref="BeginWrite"/>, <see cref="EndWrite"/>) and makes its
/// changes in one named tree, through the same B+tree code a <c>WriteTransaction</c> uses.
/// </summary>
internal sealed unsafe class CommitHarness : IDisposable
{
    public const string TreeName = "t";
    private static readonly TimeSpan LockWait = TimeSpan.FromSeconds(5);

    private readonly TestDirectory _directory;
    private readonly DirtyPageMap _dirty = new();
    private readonly List<(long, int)> _freed = [];
    private readonly int _writerSlot;

    public CommitHarness(string name)
    {
        _directory = new TestDirectory(name);
        JournalDirectory = _directory.File(JournalFileName.DirectoryName);
        Directory.CreateDirectory(JournalDirectory);
        string dataPath = _directory.File(StorageEnvironment.DataFileName);
        DataFileCreation.EnsureExists(dataPath, LockWait);
        DataFile = DataFile.Open(dataPath, LockWait);
        var headers = new HeaderStore(DataFile);
        headers.Load();
        EnvironmentId = headers.Current.EnvironmentId;
        var initial = new EnvironmentState(headers.Current.LastTransactionId, epoch: 1, PageTable.Empty, headers.Current.Root,
            DataFile.Map(), JournalPosition.None);
        FreeSpace = FreeSpaceMap.Load(LowLevelTransaction.ForReading(DataFile, Scratch, initial), initial.FreeSpaceDirectoryPage,
            initial.NextPageNumber);
        States = new StatePublisher(initial, Scratch);
        _writerSlot = States.Readers.Reserve();
        var logger = NullLogger.Instance;
        Failure = new FailureLatch(_directory.Path, logger);
        Journal = CreateJournal(JournalDirectory, IoStats, logger);
        Pipeline = new CommitPipeline(States, Journal, FreeSpace, Failure, EnvironmentId, logger, () => Publications++);
    }

    public string JournalDirectory { get; }

    public Guid EnvironmentId { get; }

    public DataFile DataFile { get; }

    public ScratchAllocator Scratch { get; } = new();

    public FreeSpaceMap FreeSpace { get; }

    public StatePublisher States { get; }

    public FailureLatch Failure { get; }

    public IoStats IoStats { get; } = new();

    public WriteAheadJournal Journal { get; }

    public CommitPipeline Pipeline { get; }

    /// <summary>How many times the pipeline said it published.</summary>
    public int Publications { get; private set; }

    /// <summary>
    /// The journal as recovery would hand it over for a new environment: no file yet, sequence 1, no spares
    /// (so nothing appears in the directory but what commits write). One place, so a change to the
    /// constructor is one edit.
    /// </summary>
    private static WriteAheadJournal CreateJournal(string directory, IoStats ioStats, ILogger logger)
    {
        var inventory = new JournalInventory(directory, new JournalSizing(1 << 20, 1 << 20), JournalFileSet.Empty(1), logger);
        return new WriteAheadJournal(inventory, new SpareJournals(inventory, logger, enabled: false), ioStats, logger, slowWrite: TimeSpan.FromMinutes(1));
    }

    /// <summary>As <c>WriterLock.StartWriting</c>: reclaim what no reader reaches (freed pages become allocatable), pin the newest state.</summary>
    public LowLevelTransaction BeginWrite()
    {
        States.ReclaimForWriter(FreeSpace);
        return LowLevelTransaction.ForWriting(DataFile, Scratch, States.Pin(_writerSlot), FreeSpace, _dirty, _freed);
    }

    /// <summary>As <c>WriterLock.StopWriting</c>: the writer no longer holds its state.</summary>
    public void EndWrite() => States.Readers.MarkIdle(_writerSlot);

    public void Commit(LowLevelTransaction tx)
    {
        Pipeline.Commit(tx);
        EndWrite();
    }

    public static void Put(LowLevelTransaction tx, string key, byte[] value) => Edit(tx, tree => tree.Put(Encoding.UTF8.GetBytes(key), value));

    public static void Delete(LowLevelTransaction tx, string key) => Edit(tx, tree => Assert.True(tree.Delete(Encoding.UTF8.GetBytes(key))));

    /// <summary>Opens (or creates) the test's tree, edits it and records its new state in the root tree, as WriteTransaction does.</summary>
    private static void Edit(LowLevelTransaction tx, Action<BTree> edit)
    {
        var root = new BTree(tx, tx.RootTree);
        var state = TreeDirectory.TryRead(root, TreeName, out var existing, "test") ? existing : BTree.CreateEmpty(tx);
        var tree = new BTree(tx, state);
        edit(tree);
        TreeDirectory.Write(root, TreeName, tree.State);
        tx.RootTree = root.State;
    }

    /// <summary>The bytes of a page run as the current state has it (scratch memory or the data file).</summary>
    public byte[] CurrentBytes(long pageNumber, int pageCount)
    {
        var reader = LowLevelTransaction.ForReading(DataFile, Scratch, States.Current);
        return new ReadOnlySpan<byte>(reader.GetPage(pageNumber), pageCount * StorageConstants.PageSize).ToArray();
    }

    /// <summary>The files in the journal directory.</summary>
    public string[] JournalFiles() => Directory.GetFiles(JournalDirectory);

    public void Dispose()
    {
        EndWrite();
        Pipeline.Dispose();
        Journal.Dispose();
        States.ReleaseAll();
        Scratch.Dispose();
        DataFile.Dispose();
        _directory.Dispose();
    }
}
