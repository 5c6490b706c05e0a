using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Pal;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn;

public sealed unsafe partial class StorageEnvironment
{
    /// <summary>
    /// Makes the transaction durable and visible: stamps its pages, builds its journal entry (each page
    /// as a diff against its previous version where that is smaller), writes the entry with one durable
    /// write, and only then publishes the new state. The data file is not touched. Runs on the writer,
    /// under the write lock, which it releases.
    /// </summary>
    /// <remarks>
    /// If the journal write fails because the disk is full, the transaction is rolled back as if it had
    /// been aborted and the environment goes on (the partial entry was wiped). Any other failure of the
    /// write leaves its outcome unknown, so the environment fails: see <see cref="EnvironmentFailedException"/>.
    /// </remarks>
    internal void Commit(LowLevelTransaction tx)
    {
        bool published = false;
        try
        {
            if (tx.DirtyPages.Count == 0 && tx.FreedPages.Count == 0)
            {
                _freeSpace.Commit();
                published = true;
                return;
            }
            ThrowIfFailed();
            tx.StampDirtyPages();
            long transactionId = tx.State.TransactionId + 1;
            long entryLength = BuildJournalEntry(tx, transactionId, _entryBuffer);
            JournalPosition position;
            try
            {
                position = _journal.Append(_entryBuffer.Pointer, entryLength, transactionId, transactionId, transactionCount: 1);
            }
            catch (DiskFullException e)
            {
                Log.CommitFailedDiskFull(_logger, e, e.FilePath ?? _journal.DirectoryPath);
                throw;
            }
            catch (JournalWriteFatalException e)
            {
                throw Fail("writing the journal", e.InnerException ?? e);
            }
            Publish(tx, transactionId, position, commitFreeSpace: true);
            published = true;
        }
        finally
        {
            if (!published)
            {
                tx.DiscardDirtyPages();
                _freeSpace.Rollback();
            }
            _userWriterOpen = false;
            _readers.MarkIdle(_writerSlot);
            _writeLock.Release();
        }
        AfterCommit();
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
            _userWriterOpen = false;
            _readers.MarkIdle(_writerSlot);
            _writeLock.Release();
        }
    }

    /// <summary>Builds the entry into the reusable aligned buffer and returns its length.</summary>
    private long BuildJournalEntry(LowLevelTransaction tx, long transactionId, JournalBuffer buffer)
    {
        try
        {
            _entryWriter.Begin(buffer, transactionId, _environmentId);
            foreach (var (pageNumber, run) in tx.DirtyPages)
            {
                byte* previous = run.IsNew ? null : tx.GetCommittedPage(pageNumber);
                _entryWriter.AddPage(pageNumber, run.PageCount, (byte*)run.Pointer, previous);
            }
            return _entryWriter.Finish(tx.NextPageNumber, _freeSpace.DirectoryPage, tx.RootTree, DateTime.UtcNow.Ticks);
        }
        catch
        {
            _entryWriter.Cancel();
            throw;
        }
    }

    /// <summary>Publishes the committed transaction as the new state; its page versions belong to the page table from now on.</summary>
    /// <remarks>
    /// <paramref name="commitFreeSpace"/>: whether the free-space map's record of this transaction's
    /// allocations is dropped now; a merged transaction dropped it when it was prepared, and the map's
    /// record belongs to the next transaction by the time this one is published.
    /// </remarks>
    private void Publish(LowLevelTransaction tx, long transactionId, JournalPosition position, bool commitFreeSpace,
        PageTable? preparedPages = null, EnvironmentState? preparedOn = null)
    {
        lock (_stateLock)
        {
            // The flusher may have published since this transaction began: build on the newest state. A merged
            // transaction brings the page table it prepared, which is the one to publish if nothing was
            // published since it was built.
            var current = _current;
            var retired = _reclaimer.Rent();
            foreach (var (pageNumber, _) in tx.DirtyPages)
            {
                if (current.Pages.TryGet(pageNumber, out var replaced))
                    retired.ScratchVersions.Add((replaced.Pointer, replaced.PageCount));
            }
            foreach (var (pageNumber, count) in tx.FreedPages)
            {
                if (current.Pages.TryGet(pageNumber, out var replaced))
                    retired.ScratchVersions.Add((replaced.Pointer, replaced.PageCount));
                retired.FreedPages.Add((pageNumber, count));
            }
            var pages = preparedPages is not null && ReferenceEquals(current, preparedOn)
                ? preparedPages
                : WithTransactionPages(current.Pages, tx, transactionId);
            var next = new EnvironmentState(transactionId, current.Epoch + 1, pages, tx.NextPageNumber,
                tx.RootTree, _freeSpace.DirectoryPage, current.View, position);
            PublishLocked(next, retired);
            if (commitFreeSpace)
                _freeSpace.Commit();
            tx.DirtyPages.Clear();
            tx.FreedPages.Clear();
            ReclaimLocked();
        }
    }

    /// <summary><paramref name="pages"/> with the transaction's page versions set and the pages it freed removed.</summary>
    private static PageTable WithTransactionPages(PageTable pages, LowLevelTransaction tx, long transactionId)
    {
        var builder = pages.ToBuilder();
        foreach (var (pageNumber, run) in tx.DirtyPages)
            builder.Set(pageNumber, new PageVersion(run.Pointer, transactionId, run.PageCount));
        foreach (var (pageNumber, _) in tx.FreedPages)
            builder.Remove(pageNumber);
        return builder.ToImmutable();
    }

    /// <summary>Under the state lock: makes <paramref name="next"/> current and retires what it no longer reaches.</summary>
    private void PublishLocked(EnvironmentState next, RetiredResources retired)
    {
        _history.Add(next);
        Volatile.Write(ref _current, next);
        _reclaimer.Retire(next.Epoch, retired);
    }

    /// <summary>Under the state lock: frees what no reader can reach any more.</summary>
    private void ReclaimLocked()
    {
        long oldest = _readers.OldestEpoch(Volatile.Read(ref _current).Epoch);
        _reclaimer.Reclaim(oldest);
        _history.Forget(oldest);
    }

    /// <summary>On the writer: reclaims, and makes freed pages nobody can see any more allocatable.</summary>
    private void ReclaimUnreachable()
    {
        lock (_stateLock)
        {
            ReclaimLocked();
            _reclaimer.ReleaseFreedPages(_freeSpace);
        }
    }

    /// <summary>Tells the flusher about work: the first commit it has not seen starts its delay, a full scratch area wakes it now.</summary>
    private void AfterCommit()
    {
        _journal.RequestSpare();
        if (Volatile.Read(ref _unflushedSince) == 0)
        {
            Volatile.Write(ref _unflushedSince, Stopwatch.GetTimestamp());
            _flushThread?.Wake();
        }
        else if (_scratch.BytesInUse >= _options.FlushThresholdBytes)
        {
            _flushThread?.Wake();
        }
    }
}
