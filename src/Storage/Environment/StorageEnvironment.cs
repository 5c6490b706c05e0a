using Cairn.Flushing;
using Cairn.FreeSpace;
using Cairn.Paging;
using Cairn.Transactions;
using Cairn.Trees;

namespace Cairn;

/// <summary>
/// An open environment: one data file of 8 KiB pages, any number of named trees, one writer and any
/// number of snapshot readers. Readers never block the writer and never see a partial commit.
/// </summary>
/// <remarks>
/// Commits are not yet durable one by one (the journal is the durability issue's work): committed
/// page versions stay in scratch memory until no reader needs the data-file copy they replace, are
/// then written to the data file, and a clean <see cref="Dispose"/> flushes everything, syncs and
/// writes the header. After a crash the environment reopens at its last clean close.
/// </remarks>
public sealed unsafe partial class StorageEnvironment : IDisposable
{
    public const string DataFileName = "cairn.data";

    private readonly StorageOptions _options;
    private readonly DataFile _dataFile;
    private readonly HeaderStore _headers;
    private readonly ScratchAllocator _scratch;
    private readonly ReaderTable _readers = new();
    private readonly ResourceReclaimer _reclaimer;
    private readonly FreeSpaceMap _freeSpace;
    private readonly DataFileFlusher _flusher;
    private readonly SemaphoreSlim _writeLock = new(1, 1);
    private readonly Dictionary<long, LowLevelTransaction.DirtyRun> _writerDirtyPages = [];
    private readonly List<(long, int)> _writerFreedPages = [];
    private readonly StateHistory _history = new();
    private readonly ReadContextPool _readContexts = new();
    private EnvironmentState _current;
    private int _disposed;
    // The oldest reader's transaction when a flush last found nothing to write: until readers move
    // on, trying again would only walk the page table for nothing on every write transaction.
    private long _fruitlessFlushOldestReader = -1;

    private StorageEnvironment(StorageOptions options, DataFile dataFile, HeaderStore headers, ScratchAllocator scratch, EnvironmentState initial, FreeSpaceMap freeSpace)
    {
        _options = options;
        _dataFile = dataFile;
        _headers = headers;
        _scratch = scratch;
        _current = initial;
        _freeSpace = freeSpace;
        _reclaimer = new ResourceReclaimer(scratch);
        _flusher = new DataFileFlusher(dataFile);
        _history.Add(initial);
    }

    public string DirectoryPath => _options.DirectoryPath;

    internal string DataFilePath => _dataFile.FilePath;

    /// <summary>The id of the last committed transaction.</summary>
    public long LastCommittedTransactionId => Volatile.Read(ref _current).TransactionId;

    /// <summary>Opens (creating if needed) the environment in <see cref="StorageOptions.DirectoryPath"/>.</summary>
    public static StorageEnvironment Open(StorageOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        Directory.CreateDirectory(options.DirectoryPath);
        var dataFile = DataFile.Open(Path.Combine(options.DirectoryPath, DataFileName));
        var scratch = new ScratchAllocator();
        try
        {
            var headers = new HeaderStore(dataFile);
            if (dataFile.IsEmpty)
                EnvironmentFormatter.Format(dataFile, headers, scratch);
            headers.Load();
            var header = headers.Current;
            CheckHeaderAgainstFile(header, dataFile);

            var state = new EnvironmentState(header.LastTransactionId, epoch: 1, PageTable.Empty, header.NextPageNumber,
                header.RootTree, header.FreeSpaceDirectoryPage, dataFile.Map());
            var freeSpace = FreeSpaceMap.Load(LowLevelTransaction.ForReading(dataFile, scratch, state),
                header.FreeSpaceDirectoryPage, header.NextPageNumber);
            return new StorageEnvironment(options, dataFile, headers, scratch, state, freeSpace);
        }
        catch
        {
            scratch.Dispose();
            dataFile.Dispose();
            throw;
        }
    }

    /// <summary>Starts a read transaction on the latest committed state. It never blocks and is never blocked.</summary>
    public ReadTransaction BeginRead()
    {
        ThrowIfDisposed();
        var state = Volatile.Read(ref _current);
        var context = _readContexts.TryRent()
            ?? new ReadContext(LowLevelTransaction.ForReading(_dataFile, _scratch, state), _readers.Reserve(), _readContexts);
        while (true)
        {
            // The protocol of ReaderTable: publish (an interlocked exchange: a full fence), re-check.
            _readers.Publish(context.ReaderSlot, state.Epoch);
            var now = Volatile.Read(ref _current);
            if (ReferenceEquals(now, state))
                break;
            state = now;
        }
        context.Bind(state);
        return new ReadTransaction(this, context);
    }

    /// <summary>Starts the write transaction, waiting up to <see cref="StorageOptions.WriteTransactionTimeout"/> for the current one.</summary>
    public WriteTransaction BeginWrite() => BeginWrite(_options.WriteTransactionTimeout);

    public WriteTransaction BeginWrite(TimeSpan timeout)
    {
        ThrowIfDisposed();
        if (!_writeLock.Wait(timeout))
            throw new WriteTransactionTimeoutException(timeout);
        try
        {
            ThrowIfDisposed();
            ReclaimUnreachable();
            // Flushing happens here, before a transaction exists, rather than at the end of the commit
            // that crossed the threshold: a failed flush (disk full, I/O error) then fails this
            // BeginWrite cleanly instead of making an already published commit look failed.
            if (_scratch.BytesInUse >= _options.FlushThresholdBytes)
            {
                FlushToDataFile();
                ReclaimUnreachable();
            }
            var state = Volatile.Read(ref _current);
            var low = LowLevelTransaction.ForWriting(_dataFile, _scratch, state, _freeSpace, _writerDirtyPages, _writerFreedPages);
            return new WriteTransaction(this, low);
        }
        catch
        {
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

    /// <summary>Publishes the transaction's pages as the new state. Runs on the writer, under the write lock.</summary>
    internal void Commit(LowLevelTransaction tx)
    {
        try
        {
            if (tx.DirtyPages.Count == 0 && tx.FreedPages.Count == 0)
            {
                _freeSpace.Commit();
                return;
            }
            tx.StampDirtyPages();
            var current = _current;
            long transactionId = current.TransactionId + 1;
            var retired = _reclaimer.Rent();
            var pages = current.Pages.ToBuilder();
            foreach (var (pageNumber, run) in tx.DirtyPages)
            {
                if (current.Pages.TryGet(pageNumber, out var replaced))
                    retired.ScratchVersions.Add((replaced.Pointer, replaced.PageCount));
                pages.Set(pageNumber, new PageVersion(run.Pointer, transactionId, run.PageCount));
            }
            foreach (var (pageNumber, count) in tx.FreedPages)
            {
                if (current.Pages.TryGet(pageNumber, out var replaced))
                {
                    retired.ScratchVersions.Add((replaced.Pointer, replaced.PageCount));
                    pages.Remove(pageNumber);
                }
                retired.FreedPages.Add((pageNumber, count));
            }
            var next = new EnvironmentState(transactionId, current.Epoch + 1, pages.ToImmutable(), tx.NextPageNumber,
                tx.RootTree, _freeSpace.DirectoryPage, current.View);
            Publish(next, retired);
            _freeSpace.Commit();
            // The table owns the page versions now.
            tx.DirtyPages.Clear();
            tx.FreedPages.Clear();
            ReclaimUnreachable();
        }
        finally
        {
            _writeLock.Release();
        }
    }

    internal void Abort(LowLevelTransaction tx)
    {
        try
        {
            tx.DiscardDirtyPages();
            _freeSpace.Rollback();
        }
        finally
        {
            _writeLock.Release();
        }
    }

    /// <summary>Writes flushable page versions to the data file and publishes a state without them.</summary>
    private void FlushToDataFile()
    {
        var current = _current;
        long oldestReader = _history.TransactionIdOf(_readers.OldestEpoch(current.Epoch));
        if (oldestReader == _fruitlessFlushOldestReader)
            return;
        var flushed = _flusher.Flush(current, oldestReader);
        if (flushed.Count == 0)
        {
            _fruitlessFlushOldestReader = oldestReader;
            return;
        }
        _fruitlessFlushOldestReader = -1;
        var retired = _reclaimer.Rent();
        var pages = current.Pages.ToBuilder();
        foreach (var (pageNumber, version) in flushed)
        {
            pages.Remove(pageNumber);
            retired.ScratchVersions.Add((version.Pointer, version.PageCount));
        }
        var view = current.View;
        if (_dataFile.PageCount != view.PageCount)
        {
            retired.View = view;
            view = _dataFile.Map();
        }
        Publish(new EnvironmentState(current.TransactionId, current.Epoch + 1, pages.ToImmutable(), current.NextPageNumber,
            current.RootTree, current.FreeSpaceDirectoryPage, view), retired);
    }

    private void Publish(EnvironmentState next, RetiredResources retired)
    {
        _history.Add(next);
        Volatile.Write(ref _current, next);
        _reclaimer.Retire(next.Epoch, retired);
    }

    private void ReclaimUnreachable()
    {
        long oldest = _readers.OldestEpoch(Volatile.Read(ref _current).Epoch);
        _reclaimer.Reclaim(oldest, _freeSpace);
        _history.Forget(oldest);
    }

    private static void CheckHeaderAgainstFile(FileHeader header, DataFile dataFile)
    {
        if (header.NextPageNumber < DataFile.HeaderPages || header.NextPageNumber > dataFile.PageCount)
            throw new StorageFormatException(dataFile.FilePath, 0,
                $"the header counts {header.NextPageNumber} pages in use but the file holds {dataFile.PageCount} (truncated file?)");
        if (header.RootTree.RootPage < DataFile.HeaderPages || header.RootTree.RootPage >= header.NextPageNumber ||
            header.FreeSpaceDirectoryPage < DataFile.HeaderPages || header.FreeSpaceDirectoryPage >= header.NextPageNumber)
            throw new StorageFormatException(dataFile.FilePath, 0, "the header points at pages outside the file");
    }

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);

    /// <summary>
    /// Test hook: closes every file as a killed process would leave them, without flushing, syncing or
    /// writing the header (the page cache keeps what was written, as it does when a process dies).
    /// </summary>
    internal void SimulateProcessCrash()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _readContexts.Clear();
        _reclaimer.ReclaimAll(_freeSpace);
        foreach (var (_, version) in _current.Pages)
            _scratch.Free((byte*)version.Pointer, version.PageCount);
        _current.View.Dispose();
        _scratch.Dispose();
        _dataFile.Dispose();
    }

    /// <summary>
    /// Flushes every committed page, syncs the data file and writes the header, so the environment
    /// reopens with all its data. Throws <see cref="LiveTransactionsException"/> if transactions are open.
    /// </summary>
    public void Dispose()
    {
        if (Volatile.Read(ref _disposed) != 0)
            return;
        int readers = _readers.ActiveCount;
        bool writerOpen = !_writeLock.Wait(0);
        if (readers > 0 || writerOpen)
        {
            if (!writerOpen)
                _writeLock.Release();
            throw new LiveTransactionsException(readers, writerOpen);
        }
        Interlocked.Exchange(ref _disposed, 1);
        try
        {
            FlushToDataFile();
            _dataFile.Sync();
            var current = _current;
            var header = _headers.Current;
            header.LastTransactionId = current.TransactionId;
            header.NextPageNumber = current.NextPageNumber;
            header.RootTree = current.RootTree;
            header.FreeSpaceDirectoryPage = current.FreeSpaceDirectoryPage;
            _headers.Write(header);
        }
        finally
        {
            _readContexts.Clear();
            _reclaimer.ReclaimAll(_freeSpace);
            foreach (var (_, version) in _current.Pages)
                _scratch.Free((byte*)version.Pointer, version.PageCount);
            _current.View.Dispose();
            _scratch.Dispose();
            _dataFile.Dispose();
            _writeLock.Dispose();
        }
    }
}
