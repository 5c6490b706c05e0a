using Cairn.Diagnostics;
using Cairn.Pal;
using Cairn.Errors;
using Cairn.FreeSpace;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Transactions;
using Microsoft.Extensions.Logging;

namespace Cairn.Commit;

/// <summary>
/// How a write transaction becomes durable and visible, in three stages:
/// <list type="number">
/// <item><b>Prepare</b> (on the writer, under the write lock): stamp the transaction's pages, build its
/// journal entry (each page as a diff against its previous version where that is smaller), make its
/// allocations final.</item>
/// <item><b>Write</b>: append the entry to the journal with one durable write.</item>
/// <item><b>Publish</b>: make the transaction the current state, so readers that begin now see it.</item>
/// </list>
/// <see cref="Commit"/> runs them in a row for <c>WriteTransaction.Commit</c>; the transaction merger runs
/// them split across its threads, writing one transaction while it executes the next on top of it. The
/// data file is not touched: the flusher writes committed pages later.
/// A lazy commit (<see cref="Commit"/> with <c>lazy</c>) swaps the last two stages: it is published at once
/// and its entry waits in the <see cref="CommitQueue"/> for a later write, which every durable write
/// carries ahead of its own entry, so entries always reach the journal in commit order.
/// </summary>
internal sealed unsafe class CommitPipeline : IDisposable
{
    private readonly StatePublisher _states;
    private readonly FreeSpaceMap _freeSpace;
    private readonly FailureLatch _failure;
    private readonly Guid _environmentId;
    private readonly ILogger _logger;
    private readonly Action _published;
    // Used by the prepare stage only, which runs on the writer (one at a time, under the write lock).
    private readonly JournalEntryWriter _entryWriter;
    // The commit of WriteTransaction.Commit, reused (under the write lock, like its transaction).
    private readonly PreparedCommit _inline = new();
    private readonly CommitQueue _queue;
    // Set once on a replica, before it is handed out: it changes only by applying its primary's entries, so a
    // local transaction reaching this pipeline (a write entry point that forgot its check) is refused here too.
    private string? _replicaDirectory;

    /// <param name="states">Where committed states are published to readers.</param>
    /// <param name="journal">The write stage's way into the journal (the environment's own, or its group's shared writes).</param>
    /// <param name="freeSpace">The writer's free-space map, updated with each commit's frees and allocations.</param>
    /// <param name="failure">Latched on a failed journal write; every later commit then throws.</param>
    /// <param name="environmentId">Written into each journal entry so recovery refuses another environment's journal.</param>
    /// <param name="logger">Where slow writes and failures are logged.</param>
    /// <param name="published">Runs after every publication (tells the flusher and the journal there is work).</param>
    /// <param name="entryOptions">How entries are encoded (compression); null: the defaults.</param>
    /// <param name="lazyBounds">When queued lazy entries are written at the latest: their bytes, and the oldest one's wait.</param>
    public CommitPipeline(StatePublisher states, IJournalAppender journal, FreeSpaceMap freeSpace, FailureLatch failure,
        Guid environmentId, ILogger logger, Action published, JournalWriterOptions? entryOptions = null,
        (long MaxBytes, TimeSpan MaxDelay)? lazyBounds = null)
    {
        var (maxBytes, maxDelay) = lazyBounds ?? (8L << 20, TimeSpan.FromMilliseconds(100));
        _queue = new CommitQueue(journal, states, failure, maxBytes, maxDelay);
        _entryWriter = new JournalEntryWriter(entryOptions ?? JournalWriterOptions.Default);
        _states = states;
        _freeSpace = freeSpace;
        _failure = failure;
        _environmentId = environmentId;
        _logger = logger;
        _published = published;
    }

    /// <summary>The environment is a replica (in <paramref name="directory"/>): from now on every local transaction with changes is refused.</summary>
    public void RefuseLocalCommits(string directory) => _replicaDirectory = directory;

    /// <summary>Published transactions waiting for their entry's write (lazy commits, and group-committed durable ones).</summary>
    public CommitQueue Queue => _queue;

    /// <summary>
    /// The three stages in a row, on the writer. If the journal write fails because the disk is full, the
    /// transaction is rolled back as if it had been aborted and the environment goes on (the partial entry
    /// was wiped). Any other failure of the write leaves its outcome unknown, so the environment fails
    /// (<see cref="EnvironmentFailedException"/>); so does any failure of a write that carries lazily
    /// committed transactions, which readers already see.
    /// With <paramref name="lazy"/>, the transaction is published without its write, and its entry queued
    /// (what a group commit does too, before its caller lets the write lock go and waits in
    /// <see cref="CommitQueue.WaitDurable"/> with the id this returns). Returns the committed transaction's id, or,
    /// for a transaction that changed nothing, the id of the state it read.
    /// </summary>
    public long Commit(LowLevelTransaction tx, bool lazy = false)
    {
        var commit = _inline;
        bool done = false;
        try
        {
            if (tx.DirtyPages.Count == 0 && tx.FreedPages.Count == 0)
            {
                _freeSpace.Commit();
                done = true;
                // Nothing of its own to write, but a durable commit returns with everything before it durable.
                if (!lazy)
                    _queue.WriteQueued();
                return tx.State.TransactionId;
            }
            Prepare(tx, commit);
            if (lazy)
            {
                var entry = _queue.Enqueue(commit.Buffer.Pointer, commit.EntryLength, commit.TransactionId);
                Publish(commit, entry);
                done = true;
                if (_queue.IsFull)
                    _queue.WriteQueued();
                return commit.TransactionId;
            }
            try
            {
                Write(commit);
            }
            catch (DiskFullException e)
            {
                Log.CommitFailedDiskFull(_logger, e, e.FilePath ?? _queue.Journal.DirectoryPath);
                throw;
            }
            catch (JournalWriteFatalException e)
            {
                throw _failure.Fail("writing the journal", e.InnerException ?? e);
            }
            catch (Exception e) when (e is not EnvironmentFailedException and not ObjectDisposedException)
            {
                // Not a failure the journal reports (a defect, or a file closed under it): whether the entry reached
                // the disk is unknown, as after an I/O error, and no internal exception type goes to the caller.
                throw _failure.Fail("writing the journal", e);
            }
            Publish(commit);
            done = true;
            return commit.TransactionId;
        }
        finally
        {
            if (!done)
                Discard(tx, commit);
            commit.Reset();
        }
    }

    /// <summary>
    /// Stage 1: stamps the transaction's pages, builds its journal entry into <paramref name="commit"/>'s
    /// buffer and makes its allocations final. A transaction that changed nothing gets no entry
    /// (<see cref="PreparedCommit.HasEntry"/> is false) and needs no other stage.
    /// </summary>
    public void Prepare(LowLevelTransaction tx, PreparedCommit commit)
    {
        _failure.ThrowIfFailed();
        if (_replicaDirectory is { } replica)
            throw new ReplicaReadOnlyException(replica, "committing a local transaction");
        commit.Transaction = tx;
        if (tx.DirtyPages.Count == 0 && tx.FreedPages.Count == 0)
        {
            _freeSpace.Commit();
            commit.TransactionId = tx.State.TransactionId;
            commit.EntryLength = 0;
            // The merger releases such a transaction's callers at once: what came before must be durable by then.
            _queue.WriteQueued();
            return;
        }
        tx.StampDirtyPages();
        long transactionId = tx.State.TransactionId + 1;
        commit.EntryLength = BuildJournalEntry(tx, transactionId, commit.Buffer);
        commit.TransactionId = transactionId;
        _freeSpace.MoveAllocationsTo(commit.Allocations);
    }

    /// <summary>
    /// After <see cref="Prepare"/>: the state the transaction leads to, not yet published, on which the merger
    /// opens the next transaction. Its epoch is its base's until it is published (the writer's reader slot holds
    /// that, so nothing it reaches is reclaimed); if nothing was published meanwhile, <see cref="Publish"/> publishes
    /// this very object, which then takes its own epoch and journal position (<see cref="EnvironmentState.Seal"/>).
    /// </summary>
    public EnvironmentState BuildStateAfter(PreparedCommit commit)
    {
        var tx = commit.Transaction!;
        var built = tx.State;
        commit.BuiltOn = built;
        commit.ReplacedTableArrays.Clear();
        var builder = commit.TableBuilder is { } kept
            ? built.Pages.ToBuilder(commit.ReplacedTableArrays, kept)
            : built.Pages.ToBuilder(commit.ReplacedTableArrays);
        commit.TableBuilder = builder;
        commit.StateAfter = built.Committed(commit.TransactionId, built.Epoch,
            StatePublisher.WithTransactionPages(builder, tx, commit.TransactionId), tx.Root, built.JournalPosition);
        return commit.StateAfter;
    }

    /// <summary>
    /// Stage 2: the durable write of the prepared entry, after every lazily committed one still queued (in the
    /// same write). Throws what the journal throws.
    /// </summary>
    public void Write(PreparedCommit commit)
        => commit.Position = _queue.WriteWith(commit.Buffer.Pointer, commit.EntryLength, commit.TransactionId);

    /// <summary>
    /// Stage 3, once the entry is durable (or, with <paramref name="lazyEntry"/>, queued: its place is filled in
    /// when it is written): the transaction becomes the current state.
    /// </summary>
    public void Publish(PreparedCommit commit, EntryLocation? lazyEntry = null)
    {
        var tx = commit.Transaction!;
        _states.PublishCommit(tx, commit.TransactionId, commit.Position, lazyEntry, commit.StateAfter, commit.BuiltOn,
            commit.ReplacedTableArrays);
        commit.ReplacedTableArrays.Clear();
        tx.DirtyPages.Clear();
        tx.FreedPages.Clear();
        commit.Allocations.Clear();
        _published();
    }

    /// <summary>
    /// The environment failed under a merged transaction's write: its outcome is unknown (an I/O error), or
    /// readers already see what it carried (queued lazy commits). A full disk that left nothing of the entry
    /// does not come here: the merger rolls that transaction back, and the one standing on it, and goes on.
    /// </summary>
    public EnvironmentFailedException FailWrite(Exception error)
    {
        var cause = error is JournalWriteFatalException fatal ? fatal.InnerException ?? fatal : error;
        return _failure.Fail("writing the journal (merged transaction)", cause);
    }

    /// <summary>Drops an unpublished transaction: its private pages, and its allocations (final or not) go back to the free-space map.</summary>
    public void Discard(LowLevelTransaction tx, PreparedCommit? commit = null)
    {
        tx.DiscardDirtyPages();
        if (commit is not null)
        {
            foreach (var (page, count) in commit.Allocations)
                _freeSpace.Release(page, count);
            commit.Allocations.Clear();
        }
        _freeSpace.Rollback();
    }

    /// <summary>Builds the entry into <paramref name="buffer"/> and returns its length.</summary>
    private long BuildJournalEntry(LowLevelTransaction tx, long transactionId, JournalBuffer buffer)
    {
        try
        {
            long pageBytes = 0;
            foreach (var (_, run) in tx.DirtyPages)
                pageBytes += (long)run.PageCount * StorageConstants.PageSize;
            _entryWriter.Begin(buffer, transactionId, _environmentId, pageBytes, tx.DirtyPages.Count);
            // One run ahead, its first lines are fetched while this one is diffed.
            var ahead = tx.DirtyPages.GetEnumerator();
            if (ahead.MoveNext())
                DiffPrefetch.Run(tx, ahead.Current.Key, ahead.Current.Value);
            foreach (var (pageNumber, run) in tx.DirtyPages)
            {
                if (ahead.MoveNext())
                    DiffPrefetch.Run(tx, ahead.Current.Key, ahead.Current.Value);
                byte* previous = run.IsNew ? null : tx.GetCommittedPage(pageNumber);
                _entryWriter.AddPage(pageNumber, run.PageCount, (byte*)run.Pointer, previous, (DirtyRanges*)run.Ranges);
            }
            return _entryWriter.Finish(tx.Root, DateTime.UtcNow.Ticks);
        }
        catch
        {
            _entryWriter.Cancel();
            throw;
        }
    }

    public void Dispose()
    {
        _queue.Dispose();
        _entryWriter.Dispose();
        _inline.Dispose();
    }
}
