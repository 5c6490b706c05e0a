using Cairn.Diagnostics;
using Cairn.Flushing;
using Cairn.FreeSpace;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Transactions;
using Microsoft.Extensions.Logging;

namespace Cairn;

/// <summary>
/// An open environment: one data file of 8 KiB pages, any number of named trees, one writer and any
/// number of snapshot readers. Readers never block the writer and never see a partial commit. A commit
/// is durable when <see cref="WriteTransaction.Commit"/> returns: its journal entry has been written
/// with one O_DIRECT|O_DSYNC write. Committed pages reach the data file later, from a background
/// thread that flushes, syncs and then deletes the journals the sync covers; recovery on open replays
/// whatever the data file lacks.
/// </summary>
public sealed unsafe partial class StorageEnvironment : IDisposable
{
    public const string DataFileName = "cairn.data";

    private readonly StorageOptions _options;
    private readonly ILogger _logger;
    private readonly DataFile _dataFile;
    private readonly HeaderStore _headers;
    private readonly ScratchAllocator _scratch;
    private readonly ReaderTable _readers = new();
    private readonly ResourceReclaimer _reclaimer;
    private readonly FreeSpaceMap _freeSpace;
    private readonly DataFileFlusher _flusher;
    private readonly WriteAheadJournal _journal;
    private readonly JournalEntryWriter _entryWriter = new();
    private readonly JournalBuffer _entryBuffer = new();
    private readonly IoStats _ioStats;
    private readonly SemaphoreSlim _writeLock = new(1, 1);
    // Guards publishing a state (the writer commits, the flusher removes flushed versions), the state
    // history and the reclaimer. Held briefly; never across I/O.
    private readonly Lock _stateLock = new();
    private readonly Dictionary<long, LowLevelTransaction.DirtyRun> _writerDirtyPages = [];
    private readonly List<(long, int)> _writerFreedPages = [];
    private readonly StateHistory _history = new();
    private readonly ReadContextPool _readContexts = new();
    // The writer and the flusher hold reader slots too, so nothing they read is reclaimed under them.
    private readonly int _writerSlot;
    private readonly int _flusherSlot;
    private readonly Guid _environmentId;
    private EnvironmentState _current;
    private FlushThread? _flushThread;
    private int _disposed;

    private StorageEnvironment(StorageOptions options, ILogger logger, IoStats ioStats, DataFile dataFile, HeaderStore headers,
        ScratchAllocator scratch, EnvironmentState initial, FreeSpaceMap freeSpace, WriteAheadJournal journal)
    {
        _options = options;
        _logger = logger;
        _ioStats = ioStats;
        _dataFile = dataFile;
        _headers = headers;
        _scratch = scratch;
        _current = initial;
        _freeSpace = freeSpace;
        _journal = journal;
        _reclaimer = new ResourceReclaimer(scratch);
        _flusher = new DataFileFlusher(dataFile);
        _history.Add(initial);
        _writerSlot = _readers.Reserve();
        _flusherSlot = _readers.Reserve();
        _environmentId = headers.Current.EnvironmentId;
        long synced = headers.Current.LastTransactionId;
        _flushedUpTo = synced;
        _flushedState = null;
        _syncedUpTo = synced;
        _lastSyncTimestamp = System.Diagnostics.Stopwatch.GetTimestamp();
    }

    public string DirectoryPath => _options.DirectoryPath;

    internal string DataFilePath => _dataFile.FilePath;

    internal string JournalDirectoryPath => _journal.DirectoryPath;

    /// <summary>The id of the last committed transaction.</summary>
    public long LastCommittedTransactionId => Volatile.Read(ref _current).TransactionId;

    /// <summary>The last transaction whose pages are all in the data file and synced (what a restart need not replay).</summary>
    public long LastSyncedTransactionId => Volatile.Read(ref _syncedUpTo);

    /// <summary>Every journal write, data-file flush and sync of this environment, most recent first out (see <see cref="Diagnostics.IoStats"/>).</summary>
    public IoStats IoStats => _ioStats;

    /// <summary>Starts a read transaction on the latest committed state. It never blocks and is never blocked.</summary>
    public ReadTransaction BeginRead()
    {
        ThrowIfDisposed();
        var state = Volatile.Read(ref _current);
        var context = _readContexts.TryRent()
            ?? new ReadContext(LowLevelTransaction.ForReading(_dataFile, _scratch, state), _readers.Reserve(), _readContexts);
        state = PublishReader(context.ReaderSlot, state);
        context.Bind(state);
        return new ReadTransaction(this, context);
    }

    /// <summary>
    /// The protocol of <see cref="ReaderTable"/>: publish the state's epoch (an interlocked exchange: a full
    /// fence), then re-check that the state is still current, so a reclaimer either sees the slot or the
    /// reader sees the newer state.
    /// </summary>
    private EnvironmentState PublishReader(int slot, EnvironmentState state)
    {
        while (true)
        {
            _readers.Publish(slot, state.Epoch);
            var now = Volatile.Read(ref _current);
            if (ReferenceEquals(now, state))
                return state;
            state = now;
        }
    }

    /// <summary>Starts the write transaction, waiting up to <see cref="StorageOptions.WriteTransactionTimeout"/> for the current one.</summary>
    public WriteTransaction BeginWrite() => BeginWrite(_options.WriteTransactionTimeout);

    public WriteTransaction BeginWrite(TimeSpan timeout)
    {
        ThrowIfDisposed();
        ThrowIfFailed();
        if (!_writeLock.Wait(timeout))
            throw new WriteTransactionTimeoutException(timeout);
        try
        {
            ThrowIfDisposed();
            ThrowIfFailed();
            if (_scratch.BytesInUse >= _options.MaxScratchBytes)
                WaitForScratchMemory();
            ReclaimUnreachable();
            var state = PublishReader(_writerSlot, Volatile.Read(ref _current));
            var low = LowLevelTransaction.ForWriting(_dataFile, _scratch, state, _freeSpace, _writerDirtyPages, _writerFreedPages);
            _userWriterOpen = true;
            return new WriteTransaction(this, low);
        }
        catch
        {
            _readers.MarkIdle(_writerSlot);
            _writeLock.Release();
            throw;
        }
    }

    internal void EndRead(ReadContext context)
    {
        _readers.MarkIdle(context.ReaderSlot);
        if (!_readContexts.Return(context))
            _readers.Release(context.ReaderSlot);
    }

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);

    /// <summary>
    /// Stops the background thread, then, unless the environment has failed, flushes every committed
    /// page, syncs the data file, writes the header and deletes the journals, so the environment
    /// reopens without replaying anything. A failed environment closes its files as they are (recovery
    /// decides at the next open). Throws <see cref="LiveTransactionsException"/> if transactions are open.
    /// If that last flush fails (a full disk, an I/O error), every file is still released and the error
    /// is thrown: nothing acknowledged is lost (the journals are kept and the next open replays them),
    /// but the host should know its data is not in the data file yet.
    /// </summary>
    public void Dispose()
    {
        if (Volatile.Read(ref _disposed) != 0)
            return;
        if (_userWriterOpen)
            throw new LiveTransactionsException(_readers.ActiveCount - (_readers.IsActive(_flusherSlot) ? 1 : 0) - 1, writer: true);
        // First, because the merger holds the write lock while it works: every queued operation commits.
        StopMerger();
        bool writerOpen = !_writeLock.Wait(0);
        int readers = _readers.ActiveCount - (_readers.IsActive(_flusherSlot) ? 1 : 0) - (writerOpen && _readers.IsActive(_writerSlot) ? 1 : 0);
        if (readers > 0 || writerOpen)
        {
            if (!writerOpen)
                _writeLock.Release();
            throw new LiveTransactionsException(readers, writerOpen);
        }
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        string how = "";
        try
        {
            _flushThread?.Stop();
            if (Volatile.Read(ref _failure) is null)
            {
                lock (_flushGate)
                {
                    try
                    {
                        FlushOnce();
                        SyncOnce(catchUpOlderCopy: true);
                    }
                    catch (Exception e)
                    {
                        how = $", not flushed ({e.Message}): the journals are kept and the next open replays them";
                        throw;
                    }
                    var (deleted, recycled) = _journal.ReleaseAll();
                    how = $", clean (journals: {deleted} deleted, {recycled} kept for reuse)";
                }
            }
            else
            {
                how = ", failed: the next open recovers from the journals";
            }
        }
        finally
        {
            Log.EnvironmentClosed(_logger, DirectoryPath, _current.TransactionId, how);
            ReleaseResources();
        }
    }

    /// <summary>
    /// Test hook: stops the background thread and closes every file as a killed process would leave
    /// them, without flushing, syncing or writing the header (the page cache keeps what was written, as
    /// it does when a process dies).
    /// </summary>
    internal void SimulateProcessCrash()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _flushThread?.Stop();
        ReleaseResources();
    }

    /// <summary>
    /// Test hook: publishes the current state with its page table edited, to show <see cref="Verify"/> states
    /// no commit makes. The test must edit it back before closing: every version in the table is freed then.
    /// </summary>
    internal void EditPageTable(Func<Paging.PageTable, Paging.PageTable> edit)
    {
        lock (_stateLock)
        {
            var current = _current;
            PublishLocked(current.WithPages(current.Epoch + 1, edit(current.Pages), current.View), _reclaimer.Rent());
        }
    }

    private void ReleaseResources()
    {
        _merger?.Dispose();
        _flushThread?.Dispose();
        _readContexts.Clear();
        lock (_stateLock)
        {
            _reclaimer.ReclaimAll();
            foreach (var (_, version) in _current.Pages)
                _scratch.Free((byte*)version.Pointer, version.PageCount);
            _current.View.Dispose();
            _history.Clear();
        }
        _journal.Dispose();
        _entryWriter.Dispose();
        _entryBuffer.Dispose();
        _scratch.Dispose();
        _dataFile.Dispose();
        _writeLock.Dispose();
    }
}
