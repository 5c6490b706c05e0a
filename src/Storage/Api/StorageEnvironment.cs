using Cairn.Backups;
using Cairn.Commit;
using Cairn.Diagnostics;
using Cairn.Errors;
using Cairn.Flushing;
using Cairn.FreeSpace;
using Cairn.Journal.Files;
using Cairn.Journal.Sharing;
using Cairn.Merger;
using Cairn.Paging;
using Cairn.Transactions;
using Cairn.Verification;
using Microsoft.Extensions.Logging;

namespace Cairn;

/// <summary>
/// An open environment: one data file of 8 KiB pages, any number of named trees, one writer and any
/// number of snapshot readers. Readers never block the writer and never see a partial commit. A commit
/// is durable when <see cref="WriteTransaction.Commit()"/> returns: its journal entry has been written
/// with one O_DIRECT|O_DSYNC write. Committed pages reach the data file later, from a background
/// thread that flushes, syncs and then deletes the journals the sync covers; recovery on open replays
/// whatever the data file lacks.
/// </summary>
/// <remarks>
/// This class is wiring and the public API. The work is done by its components (docs/design.md, "Reading
/// order"): <see cref="StatePublisher"/> (published states, readers, reclamation), <see cref="TransactionCommitter"/>
/// (the one writer; prepare, write, publish; durable, lazy or group commit), <see cref="FlushScheduler"/>
/// (flush and sync), <see cref="TransactionMerger{T}"/> (<see cref="WriteAsync{TState}"/>).
/// </remarks>
public sealed partial class StorageEnvironment : IDisposable
{
    /// <summary>The data file's name inside <see cref="DirectoryPath"/>: <c>cairn.data</c>. Journals are in its <c>Journals/</c> subdirectory.</summary>
    public const string DataFileName = "cairn.data";

    /// <summary>Bytes per page of the data file: page N starts at offset N × PageSize.</summary>
    public const int PageSize = StorageConstants.PageSize;

    private readonly StorageOptions _options;
    private readonly ILogger _logger;
    private readonly DataFile _dataFile;
    private readonly ScratchAllocator _scratch;
    private readonly FreeSpaceMap _freeSpace;
    private readonly WriteAheadJournal _journal;
    // Its place in a journal group (a root's group, a branch's membership) and the group member its commits write
    // through: a branch's from the open, a root's from its first branch; none while it stands alone.
    private readonly JournalGroupSeat _groupSeat;
    private readonly FailureLatch _failure;
    private readonly StatePublisher _states;
    private readonly ScratchBudget _budget;
    private readonly TransactionCommitter _committer;
    // WriteAsync and Write: the transaction merger, created on the first merged write.
    private readonly EnvironmentMerger _mergedWrites;
    private readonly FlushScheduler _flusher;
    // The data file's header copies; read (never written) by a backup while it holds the flusher's syncs.
    private readonly HeaderStore _headers;
    private readonly ReadContextPool _readContexts = new();
    // What recovery replayed at open, for GetInfo.
    private readonly long _transactionsReplayedAtOpen;
    private int _disposed;
    // Hot copies (EnvironmentBackup) running now: Dispose refuses to close the files under one, and none starts while a close goes on.
    private readonly BackupGate _backups = new();

    private StorageEnvironment(StorageOptions options, ILogger logger, Opening.OpenedEnvironment opened, GroupMembership? membership = null)
    {
        _options = options;
        _logger = logger;
        _dataFile = opened.DataFile;
        _scratch = opened.Scratch;
        _freeSpace = opened.FreeSpace;
        _journal = opened.Journal;
        IoStats = opened.IoStats;
        _transactionsReplayedAtOpen = opened.TransactionsReplayed;
        _headers = opened.Headers;
        _failure = new FailureLatch(options.DirectoryPath, logger);
        _states = new StatePublisher(opened.InitialState, _scratch);
        _budget = new ScratchBudget(_scratch, options.MaxScratchBytes, options.ScratchWaitTimeout, _failure, logger);
        EnvironmentId = opened.Headers.Current.EnvironmentId;
        var branchMember = membership is null ? null : new JournalGroupMember(_journal, EnvironmentId, isRoot: false, IoStats, logger);
        branchMember?.Attach(membership!.Group);
        // A standalone environment writes its own journal directly; a group member through the group.
        _committer = new TransactionCommitter(_states, _dataFile, _scratch, _freeSpace, _budget, _failure,
            (IJournalAppender?)branchMember ?? _journal, EnvironmentId, logger, OnPublished,
            new Journal.JournalWriterOptions { CompressionThreshold = options.JournalCompressionThresholdBytes ?? Journal.JournalWriterOptions.CompressionDisabled },
            (options.LazyCommitMaxBytes, options.LazyCommitMaxDelay));
        _flusher = new FlushScheduler(_states, new DataFileFlushTarget(_dataFile, opened.Headers, _journal), _budget, _scratch, _failure,
            new FlushSettings(options.MaxFlushDelay, options.FlushThresholdBytes, options.SyncInterval, options.MaxJournalFileBytes)
                { MaxRecoveryJournalBytes = options.MaxRecoveryJournalBytes },
            IoStats, logger, syncedUpTo: opened.Headers.Current.LastTransactionId,
            syncedPosition: new Journal.JournalPosition(opened.Headers.Current.JournalSequence, opened.Headers.Current.JournalOffset));
        _mergedWrites = new EnvironmentMerger(this, _committer, _failure, options);
        _groupSeat = new JournalGroupSeat(_journal, branchMember, EnvironmentId, options.DirectoryPath, options, membership, _committer, IoStats, logger);
        StartMetrics();
        _flusher.Start(unflushedWork: opened.TransactionsReplayed > 0);
        RequestSpareJournal();
    }

    /// <summary>The environment's directory, as given in <see cref="StorageOptions.DirectoryPath"/>.</summary>
    public string DirectoryPath => _options.DirectoryPath;

    internal string DataFilePath => _dataFile.FilePath;

    internal string JournalDirectoryPath => _journal.DirectoryPath;

    /// <summary>The id of the last committed transaction.</summary>
    public long LastCommittedTransactionId => _states.Current.TransactionId;

    /// <summary>
    /// The last transaction whose journal entry, and every earlier one's, is durable: what a crash now would
    /// keep. It trails <see cref="LastCommittedTransactionId"/> only while lazily committed transactions
    /// (<see cref="CommitMode.Lazy"/>) wait for their write.
    /// </summary>
    public long LastDurableTransactionId => _states.DurableUpTo;

    /// <summary>The last transaction whose pages are all in the data file and synced (what a restart need not replay).</summary>
    public long LastSyncedTransactionId => _flusher.SyncedUpTo;

    /// <summary>Every journal write, data-file flush and sync of this environment, most recent first out (see <see cref="Diagnostics.IoStats"/>).</summary>
    public IoStats IoStats { get; }

    /// <summary>
    /// Scratch memory in use, in bytes: committed page versions not yet in the data file, and older copies
    /// open readers still see. Commits wait for room once it reaches <see cref="StorageOptions.MaxScratchBytes"/>.
    /// </summary>
    public long ScratchBytesInUse => _scratch.BytesInUse;

    /// <summary>
    /// Bytes of journal files on disk that recovery may need: the one in service and those waiting for a
    /// data-file sync to cover them (not those kept only for a shipping consumer: <see cref="JournalBytesRetainedForShipping"/>).
    /// Growing without bound means the flusher is not keeping up (or a long reader pins what it would write).
    /// </summary>
    public long JournalBytesOnDisk => _journal.RetainedBytes;

    /// <summary>
    /// Bytes of synced journals kept on disk only because a shipping consumer has not acknowledged them
    /// (<see cref="StorageOptions.JournalRetentionBytes"/> bounds them); 0 without retention.
    /// </summary>
    public long JournalBytesRetainedForShipping => _journal.ShippingRetainedBytes;

    // Where the last ReadJournalEntries (EnvironmentShipping) stopped, so a consumer reading on from there does not scan from the start.
    internal Shipping.JournalEntryScan.ScanHint? ShippingScanHint;

    /// <summary>True once an I/O failure has stopped the environment from accepting writes (see <see cref="EnvironmentFailedException"/>).</summary>
    public bool HasFailed => _failure.HasFailed;

    /// <summary>Why the environment stopped accepting writes (the error <see cref="WriteTransaction.Commit()"/> and <see cref="BeginWrite()"/> now throw), or null while <see cref="HasFailed"/> is false.</summary>
    public EnvironmentFailedException? Failure => _failure.HasFailed ? _failure.Exception() : null;

    /// <summary>Starts a read transaction on the latest committed state. It never blocks and is never blocked.</summary>
    /// <remarks>It allocates its small handle; <see cref="BeginReadSnapshot"/> is the same transaction as a struct that allocates nothing.</remarks>
    public ReadTransaction BeginRead() => new(this, RentReadContext());

    /// <summary>Starts the write transaction, waiting up to <see cref="StorageOptions.WriteTransactionTimeout"/> for the current one.</summary>
    public WriteTransaction BeginWrite() => BeginWrite(_options.WriteTransactionTimeout);

    /// <summary>
    /// Starts the write transaction, waiting up to <paramref name="timeout"/> for the current one (from this or
    /// another thread, or the transaction merger) to end. There is one writer at a time; readers are never blocked.
    /// It may also wait for scratch memory (<see cref="StorageOptions.MaxScratchBytes"/>).
    /// </summary>
    /// <param name="timeout">How long to wait for the write lock; <see cref="TimeSpan.Zero"/> tries once.</param>
    /// <exception cref="WriteTransactionTimeoutException">Another write transaction still held the lock after <paramref name="timeout"/>.</exception>
    /// <exception cref="ScratchMemoryExhaustedException">Scratch memory stayed over its limit for <see cref="StorageOptions.ScratchWaitTimeout"/>.</exception>
    /// <exception cref="EnvironmentFailedException">An earlier I/O failure stopped the environment; reopen it.</exception>
    /// <exception cref="ObjectDisposedException">The environment has been disposed.</exception>
    public WriteTransaction BeginWrite(TimeSpan timeout)
    {
        ThrowIfDisposed();
        _failure.ThrowIfFailed();
        if (!_committer.Writer.TryAcquire(timeout))
            throw new WriteTransactionTimeoutException(timeout);
        ThrowIfDisposedReleasing();
        return new WriteTransaction(this, _committer.StartUserWrite());
    }

    private void ThrowIfDisposedReleasing()
    {
        if (Volatile.Read(ref _disposed) == 0)
            return;
        _committer.Writer.Release();
        ThrowIfDisposed();
    }

    /// <summary><see cref="WriteTransaction.Commit()"/>: the committer chooses durable, lazy or group commit, then the write lock goes.</summary>
    internal long Commit(LowLevelTransaction tx, CommitMode mode) => _committer.Commit(tx, lazy: mode == CommitMode.Lazy);

    internal void Abort(LowLevelTransaction tx) => _committer.Abort(tx);

    /// <summary>The components <see cref="ReplicaEnvironment"/> and <see cref="EnvironmentBackup"/> work through.</summary>
    internal EngineParts Parts => new(_options, _logger, _states, _scratch, _journal, _dataFile, _headers, _committer, _failure, _flusher,
        _metrics, _backups, _groupSeat);

    /// <summary>After every published commit: the journal prepares its next file, the flusher learns there is work.</summary>
    internal void OnPublished()
    {
        RequestSpareJournal();
        _flusher.OnPublished();
    }

    /// <summary>A spare of its own journal, unless the environment writes into its root's journal (then it only needs one if it falls back).</summary>
    private void RequestSpareJournal()
    {
        if (!SharesRootJournal)
            _journal.RequestSpare();
    }

    internal void EndRead(ReadContext context) => _readContexts.EndRead(context, _states);

    /// <summary>
    /// Writes every committed page no reader still needs the old copy of to the data file, syncs it, records the synced
    /// transaction in the header and deletes the journals it covers. The background thread does this on its own schedule;
    /// call this to do it now (before a backup, or to keep a restart short). Pages newer than what the oldest open read
    /// transaction sees stay in memory.
    /// On a disk too full to take every journal's pages at once it goes journal by journal, oldest first, deleting
    /// each journal once the data file and header are past it, so it needs room for about one journal's pages.
    /// </summary>
    /// <remarks>
    /// While a backup runs (<see cref="EnvironmentBackup.Backup(StorageEnvironment, string, BackupOptions?, CancellationToken)"/>,
    /// and the stream and compacting forms) the checkpoint flushes, syncs and records the synced transaction in both header copies as
    /// always, but deletes only the journals whose transactions all lie at or before the synced transaction the
    /// oldest running backup started from (the backup copies every journal after it); the rest it covered go when the
    /// last running backup ends. No checkpoint goes journal by journal while a backup runs.
    /// </remarks>
    /// <exception cref="DiskFullException">Not even one journal's pages fit: the message says how many bytes the data
    /// file had to grow and how many its file system had free. Nothing is lost (the journals keep what is not in the data
    /// file) and the environment goes on; the journals already passed are gone.</exception>
    public void Checkpoint()
    {
        ThrowIfDisposed();
        _failure.ThrowIfFailed();
        _committer.WriteQueued();
        _flusher.Checkpoint();
    }

    /// <summary>
    /// Makes every lazily committed transaction (<see cref="CommitMode.Lazy"/>) durable: returns once their
    /// journal entries are written, in one write. Returns at once if none is waiting.
    /// </summary>
    /// <exception cref="EnvironmentFailedException">The write failed (the environment is failed: reopen it), or an earlier failure did.</exception>
    /// <exception cref="ObjectDisposedException">The environment has been disposed.</exception>
    public void FlushJournal()
    {
        ThrowIfDisposed();
        _failure.ThrowIfFailed();
        _committer.WriteQueued();
    }

    /// <summary>The commit mode of <see cref="WriteTransaction.Commit()"/>: <see cref="StorageOptions.CommitMode"/>.</summary>
    internal CommitMode DefaultCommitMode => _options.CommitMode;

    /// <summary>
    /// Checks the whole environment as of the last commit: every tree's key order, separator bounds,
    /// depth, counts and page checksums, and that every page below the high-water mark is exactly
    /// one of in use, free, or freed but waiting for readers. Holds the write lock while it runs.
    /// Throws <see cref="VerificationException"/> listing every problem.
    /// </summary>
    public VerificationReport Verify() => VerifyWith(loadFreeSpace: false);

    /// <param name="loadFreeSpace">Check against the free-space map the state's bitmap pages hold, not the in-memory one: a
    /// replica's engine never allocates, so its in-memory map is the one it opened with (the applied entries carry the bitmap pages).</param>
    internal VerificationReport VerifyWith(bool loadFreeSpace)
    {
        ThrowIfDisposed();
        if (!_committer.Writer.TryAcquire(_options.WriteTransactionTimeout))
            throw new WriteTransactionTimeoutException(_options.WriteTransactionTimeout);
        try
        {
            _committer.Writer.Reclaim();
            using var tx = BeginRead();
            var freeSpace = !loadFreeSpace ? _freeSpace
                : FreeSpaceMap.Load(tx.Low, tx.Low.State.FreeSpaceDirectoryPage, tx.Low.State.NextPageNumber);
            return EnvironmentVerifier.Verify(tx.Low, freeSpace, _states.WaitingPages(), _dataFile.FilePath).ToReport();
        }
        finally
        {
            _committer.Writer.Release();
        }
    }

    internal void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);

    /// <summary>Read transactions open: every slot but the writer's, the flusher's and the durable state's, judged in one scan.</summary>
    private int OpenReaders()
        => _states.Readers.ActiveCountExcept([_flusher.ReaderSlot, _states.DurableSlot, _committer.Writer.ReaderSlot]);

    /// <summary>
    /// Stops the background thread, then, unless the environment has failed, flushes every committed
    /// page, syncs the data file, writes the header and deletes the journals, so the environment
    /// reopens without replaying anything. A failed environment closes its files as they are (recovery
    /// decides at the next open). Throws <see cref="LiveTransactionsException"/> if transactions are open.
    /// If that last flush fails (a full disk, an I/O error), every file is still released and the error
    /// is thrown: nothing acknowledged is lost (the journals are kept and the next open replays them),
    /// but the host should know its data is not in the data file yet. A disk too full for one flush is
    /// checkpointed journal by journal (see <see cref="Checkpoint"/>), so the close needs room for about one
    /// journal's pages, not all of them.
    /// </summary>
    public void Dispose()
    {
        if (Volatile.Read(ref _disposed) != 0)
            return;
        if (_committer.UserWriterOpen)
            throw new LiveTransactionsException(OpenReaders(), writer: true);
        _backups.BeginClose();
        // First, because the merger holds the write lock while it works: every queued operation commits.
        _mergedWrites.Stop();
        WriteLazyCommitsForClose();
        _groupSeat.Close();
        bool writerOpen = !_committer.Writer.TryAcquire(TimeSpan.Zero);
        int readers = OpenReaders();
        if (readers > 0 || writerOpen)
        {
            if (!writerOpen)
                _committer.Writer.Release();
            _backups.CancelClose(); // still open: backups may start again
            throw new LiveTransactionsException(readers, writerOpen);
        }
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        string how = "";
        try
        {
            _flusher.Close(ref how);
        }
        finally
        {
            Log.EnvironmentClosed(_logger, DirectoryPath, _states.Current.TransactionId, how);
            ReleaseResources();
        }
    }

    /// <summary>
    /// Lazily committed transactions are written before the journal group closes (a branch's go through its
    /// root's). If that fails, the environment has failed, and the close goes on as a failed one's: the next
    /// open recovers what was durable.
    /// </summary>
    private void WriteLazyCommitsForClose()
    {
        try
        {
            _committer.WriteQueued();
        }
        catch (EnvironmentFailedException)
        {
        }
    }

    private void ReleaseResources()
    {
        _committer.DropQueued();
        _metrics.Dispose();
        _groupSeat.Close();
        _groupSeat.Leave();
        _mergedWrites.Dispose();
        _flusher.Dispose();
        _readContexts.Clear();
        _states.ReleaseAll();
        _journal.Dispose();
        _groupSeat.Dispose();
        _committer.Dispose();
        _scratch.Dispose();
        _dataFile.Dispose();
    }
}
