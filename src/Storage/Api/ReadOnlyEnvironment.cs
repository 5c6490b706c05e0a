using Cairn.Diagnostics;
using Cairn.FreeSpace;
using Cairn.Opening;
using Cairn.Paging;
using Cairn.Transactions;
using Cairn.Verification;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn;

/// <summary>
/// An environment opened read-only (<see cref="Open(StorageOptions)"/>): what inspecting
/// tools use. It has no write members. Opening it changes nothing on disk: no file is created, written, cut,
/// renamed or deleted, no journal link is released. An environment that was not closed cleanly is recovered in
/// memory only: the replayed pages are served to readers over the data file as it is, and nothing is flushed.
/// It holds the environment's lock while open, so no writer opens it meanwhile, and it is not opened while one has it
/// (docs/decisions.md, issue 30, read-only open).
/// </summary>
/// <remarks>
/// Its one state never changes: every read transaction sees the same snapshot, the last transaction the journals hold
/// whole. A journal that ends in an invalid entry (a torn write, or a damaged last entry: the bytes cannot tell which)
/// is left as it is and reported in <see cref="JournalTail"/>; a writable open would cut it off.
/// </remarks>
public sealed class ReadOnlyEnvironment : IDisposable, IReadHost
{
    private readonly DataFile _dataFile;
    private readonly ScratchAllocator _scratch;
    private readonly StatePublisher _states;
    private readonly FreeSpaceMap _freeSpace;
    private readonly ReadContextPool _readContexts = new();
    private readonly EnvironmentStanding _standing;
    private int _disposed;

    internal ReadOnlyEnvironment(string directory, ReadOnlyOpened opened)
    {
        _dataFile = opened.DataFile;
        _scratch = opened.Scratch;
        _freeSpace = opened.FreeSpace;
        _states = new StatePublisher(opened.State, _scratch);
        DirectoryPath = directory;
        EnvironmentId = opened.Header.EnvironmentId;
        LastSyncedTransactionId = opened.Header.LastTransactionId;
        TransactionsReplayedAtOpen = opened.TransactionsReplayed;
        if (opened.TornTail is { } tail)
            JournalTail = new JournalTailDamage(tail.FilePath, tail.Offset, tail.TransactionId, tail.Problem);
        _standing = new EnvironmentStanding(directory, _dataFile.FilePath, Path.Combine(directory, Journal.Files.JournalFileName.DirectoryName),
            EnvironmentId, LastSyncedTransactionId, LastSyncedTransactionId, TransactionsReplayedAtOpen);
    }

    /// <summary>Opens the environment in <paramref name="directoryPath"/> read-only, with default options (see <see cref="Open(StorageOptions)"/>).</summary>
    public static ReadOnlyEnvironment Open(string directoryPath) => Open(new StorageOptions(directoryPath));

    /// <summary>
    /// Opens an existing environment read-only, changing nothing on disk (<see cref="ReadOnlyEnvironment"/>). An
    /// environment that was not closed cleanly is recovered in memory. Of the options, only those of opening and
    /// reading apply: <see cref="StorageOptions.DirectoryPath"/>, <see cref="StorageOptions.LockWaitTimeout"/>,
    /// <see cref="StorageOptions.MaxScratchBytes"/> (the memory the replayed pages may take) and
    /// <see cref="StorageOptions.LoggerFactory"/>.
    /// </summary>
    /// <exception cref="EnvironmentNotFoundException">No such directory, or no data file in it (nothing is created).</exception>
    /// <exception cref="EnvironmentLockedException">A process (or an instance in this one) has it open, read-only or not.</exception>
    /// <exception cref="ReadOnlyOpenRefusedException">Opening it would need a change on disk (the reason says which).</exception>
    /// <exception cref="JournalCorruptionException">A journal is damaged where recovery needs it (the message names the file and offset).</exception>
    /// <exception cref="PageCorruptionException">A page does not validate.</exception>
    /// <exception cref="StorageFormatException">The data file is not a Cairn data file of this format, or both header copies are damaged.</exception>
    public static ReadOnlyEnvironment Open(StorageOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        StorageOptionsValidation.Validate(options);
        var logger = (options.LoggerFactory ?? NullLoggerFactory.Instance).CreateLogger(StorageEnvironment.LogCategory);
        var opened = ReadOnlyOpener.Open(options.DirectoryPath, StorageEnvironment.DataFileName, options.LockWaitTimeout, options.MaxScratchBytes, logger);
        return new ReadOnlyEnvironment(options.DirectoryPath, opened);
    }

    /// <summary>The environment's directory.</summary>
    public string DirectoryPath { get; }

    /// <summary>The identity written in the data file and every journal entry.</summary>
    public Guid EnvironmentId { get; }

    /// <summary>The last transaction the environment holds: the data file's, or the last one its journals hold whole.</summary>
    public long LastCommittedTransactionId => _states.Current.TransactionId;

    /// <summary>The last transaction the data file holds (its header's); those after it were replayed from the journals, in memory.</summary>
    public long LastSyncedTransactionId { get; }

    /// <summary>Transactions replayed from the journals at open (into memory only).</summary>
    public long TransactionsReplayedAtOpen { get; }

    /// <summary>
    /// Where the journal ended in an invalid entry with nothing valid after it, left as it is; null when the log ended
    /// cleanly. Either a write torn by a crash (never acknowledged) or a damaged acknowledged entry: nothing on disk
    /// tells the two apart, so a checker should report it rather than decide.
    /// </summary>
    public JournalTailDamage? JournalTail { get; }

    /// <summary>
    /// The environment's I/O statistics while open read-only: always empty, since a read-only environment writes no
    /// journal, flushes nothing and syncs nothing (a running writer's statistics are in its own process).
    /// </summary>
    public IoStats IoStats { get; } = new(IoStats.MinimumCapacity);

    string IReadHost.DataFilePath => _dataFile.FilePath;

    /// <summary>Starts a read transaction. Every read transaction of a read-only environment sees the same snapshot.</summary>
    /// <exception cref="ObjectDisposedException">The environment has been disposed.</exception>
    public ReadTransaction BeginRead()
    {
        ThrowIfDisposed();
        return new ReadTransaction(this, _readContexts.RentPinned(_states, _dataFile, _scratch));
    }

    void IReadHost.EndRead(ReadContext context) => _readContexts.EndRead(context, _states);

    /// <summary>
    /// Describes the environment as <see cref="StorageEnvironment.GetInfo"/> does; flushed and synced are the data
    /// file's transaction, and <see cref="EnvironmentInfo.JournalTail"/> is <see cref="JournalTail"/>.
    /// </summary>
    public EnvironmentInfo GetInfo()
    {
        using var tx = BeginRead();
        return EnvironmentInfoReader.Read(tx, [], _standing) with { JournalTail = JournalTail };
    }

    /// <summary>
    /// Checks the whole environment as <see cref="StorageEnvironment.Verify"/> does (no page waits for readers here).
    /// A <see cref="JournalTail"/> is not part of it: the caller decides what a damaged or torn tail means to it.
    /// </summary>
    /// <exception cref="VerificationException">Any problem; the message lists every one.</exception>
    public VerificationReport Verify()
    {
        using var tx = BeginRead();
        return EnvironmentVerifier.Verify(tx.Low, _freeSpace, [], _dataFile.FilePath).ToReport();
    }

    /// <summary>Closes the files and frees the replayed pages. Throws <see cref="LiveTransactionsException"/> while read transactions are open.</summary>
    public void Dispose()
    {
        if (Volatile.Read(ref _disposed) != 0)
            return;
        if (_states.Readers.ActiveCount is > 0 and var readers)
            throw new LiveTransactionsException(readers, writer: false);
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _readContexts.Clear();
        _states.ReleaseAll();
        _scratch.Dispose();
        _dataFile.Dispose();
    }

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
}
