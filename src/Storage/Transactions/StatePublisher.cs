using Cairn.FreeSpace;
using Cairn.Journal;
using Cairn.Paging;

namespace Cairn.Transactions;

/// <summary>
/// Publishes the environment's states and decides when what they no longer reach may go. Two parties
/// publish: the commit pipeline (a committed transaction becomes the current state) and the flusher
/// (flushed page versions leave the page table). Readers pin the state they read in the reader table;
/// a retired scratch version, mapping or freed page is reclaimed only once no pinned state reaches it.
/// </summary>
internal sealed unsafe partial class StatePublisher
{
    // Guards publishing (the current state, the history of states readers may hold, the reclaimer's
    // queues) and reading the history and reclaimer. Held briefly; never across I/O.
    private readonly Lock _stateLock = new();
    private readonly StateHistory _history = new();
    private readonly ResourceReclaimer _reclaimer;
    private readonly ScratchAllocator _scratch;
    private EnvironmentState _current;

    // Under _stateLock. Every published transaction up to this one has its entry durably in the journal.
    // While a lazily committed transaction above it is published, _durableSlot pins the newest state at or
    // below it: the flusher flushes no state newer than the oldest pinned one (so the data file never holds
    // a page of a transaction the journal could lose), and what that state reaches is not reclaimed.
    private long _durableUpTo;

    // Under _stateLock, ascending: published transactions above _durableUpTo whose entry ended a journal write (the
    // next one's started a batch), so MarkDurable may stop the watermark there and pin that state for the flusher.
    // A superseded version such a state has is kept (SweepSuperseded), as one a reader holds is.
    private readonly Queue<long> _durableStops = new();
    // Scratch for ReclaimLocked: the transactions of held states and durable stops, sorted.
    private readonly List<long> _reaching = [];

    public StatePublisher(EnvironmentState initial, ScratchAllocator scratch)
    {
        _current = initial;
        _scratch = scratch;
        _reclaimer = new ResourceReclaimer(scratch);
        _history.Add(initial);
        _durableUpTo = initial.TransactionId;
        DurableSlot = Readers.Reserve();
    }

    /// <summary>The reader slot that holds back flushes to the newest durable state while lazy commits wait for their write.</summary>
    public int DurableSlot { get; }

    /// <summary>The newest transaction whose entry, and every one before it, is durable in the journal.</summary>
    public long DurableUpTo => Volatile.Read(ref _durableUpTo);

    /// <summary>Which epochs live readers (and the writer and flusher, which read too) hold.</summary>
    public ReaderTable Readers { get; } = new();

    public EnvironmentState Current => Volatile.Read(ref _current);

    /// <summary>
    /// Pins the current state in <paramref name="slot"/> and returns it. The protocol of <see cref="ReaderTable"/>:
    /// publish the epoch (an interlocked exchange: a full fence), then re-check that the state is still
    /// current, so a reclaimer either sees the slot or the reader sees the newer state.
    /// </summary>
    public EnvironmentState Pin(int slot)
    {
        var state = Current;
        while (true)
        {
            Readers.Publish(slot, state.Epoch);
            var now = Current;
            if (ReferenceEquals(now, state))
                return state;
            state = now;
        }
    }

    /// <summary>
    /// Publishes a committed transaction as the new state; its page versions belong to the page table from
    /// now on, and what they replace (and the pages it freed) retire. <paramref name="prepared"/>, the state after the
    /// transaction built on <paramref name="preparedOn"/> ahead of publication, is itself published if nothing was
    /// published since (it takes its epoch and journal position then: <see cref="EnvironmentState.Seal"/>); otherwise
    /// (the flusher published meanwhile) the transaction's pages are applied to the newest state's table.
    /// </summary>
    public void PublishCommit(LowLevelTransaction tx, long transactionId, JournalPosition position,
        EnvironmentState? prepared = null, EnvironmentState? preparedOn = null)
        => PublishCommit(tx, transactionId, position, lazyEntry: null, prepared, preparedOn);

    /// <summary>
    /// <see cref="PublishCommit(LowLevelTransaction, long, JournalPosition, EnvironmentState?, EnvironmentState?)"/> for a
    /// transaction whose entry may not be written yet (with <paramref name="lazyEntry"/>: filled in when it is, and
    /// <see cref="MarkDurable"/> follows). A durable commit's entry was written after every queued one before it, so
    /// it makes them all durable. <paramref name="preparedReplaced"/>: the arrays of <paramref name="preparedOn"/>'s table
    /// that <paramref name="prepared"/> no longer has, retired if it is published.
    /// </summary>
    public void PublishCommit(LowLevelTransaction tx, long transactionId, JournalPosition position, EntryLocation? lazyEntry,
        EnvironmentState? prepared = null, EnvironmentState? preparedOn = null, List<object>? preparedReplaced = null)
    {
        bool durable = lazyEntry is null;
        lock (_stateLock)
        {
            var current = _current;
            if (!durable && _durableUpTo == current.TransactionId)
                Readers.Publish(DurableSlot, current.Epoch); // the first lazy commit since everything was durable
            if (lazyEntry is { StartsBatch: true } && current.TransactionId > _durableUpTo)
                _durableStops.Enqueue(current.TransactionId); // its entry ended the journal write before this one's
            var retired = _reclaimer.Rent();
            foreach (var (pageNumber, _) in tx.DirtyPages)
            {
                if (current.Pages.TryGet(pageNumber, out var replaced))
                    retired.Superseded.Add(new SupersededVersion(replaced.Pointer, replaced.PageCount, replaced.TransactionId, transactionId));
            }
            foreach (var (pageNumber, count) in tx.FreedPages)
            {
                if (current.Pages.TryGet(pageNumber, out var replaced))
                    retired.Superseded.Add(new SupersededVersion(replaced.Pointer, replaced.PageCount, replaced.TransactionId, transactionId));
                retired.FreedPages.Add((pageNumber, count));
            }
            EnvironmentState next;
            if (prepared is not null && ReferenceEquals(current, preparedOn))
            {
                if (preparedReplaced is not null)
                    retired.TableArrays.AddRange(preparedReplaced);
                // The prepared state is the commit's as it is (same id, root and view): publishing it, not a copy,
                // spares a state object per merged commit. A lazy entry's state carries the entry's location, which
                // the prepared one was built without.
                next = lazyEntry is null
                    ? prepared.Seal(current.Epoch + 1, position)
                    : current.Committed(transactionId, current.Epoch + 1, prepared.Pages, tx.Root, position, lazyEntry);
            }
            else
            {
                var pages = WithTransactionPages(current.Pages, tx, transactionId, retired.TableArrays);
                next = current.Committed(transactionId, current.Epoch + 1, pages, tx.Root, position, lazyEntry);
            }
            PublishLocked(next, retired);
            if (durable)
                MarkDurableLocked(transactionId);
            ReclaimLocked();
        }
    }

    /// <summary>
    /// The newest published state whose transaction, and every one before it, is durable in the journal (its
    /// <see cref="EnvironmentState.JournalPosition"/> is known): the current state unless published transactions
    /// wait for their write, then the one the durable slot pins (kept in the history).
    /// </summary>
    public EnvironmentState DurableState()
    {
        lock (_stateLock)
            return _durableUpTo >= _current.TransactionId ? _current : _history.NewestAtOrBefore(_durableUpTo);
    }

    /// <summary>
    /// The entries of every transaction up to <paramref name="transactionId"/> are durable (their
    /// <see cref="EntryLocation"/>s already hold where): the flusher may flush states up to it.
    /// </summary>
    public void MarkDurable(long transactionId)
    {
        lock (_stateLock)
        {
            if (transactionId <= _durableUpTo)
                return;
            MarkDurableLocked(transactionId);
            ReclaimLocked();
        }
    }

    private void MarkDurableLocked(long transactionId)
    {
        _durableUpTo = Math.Max(_durableUpTo, transactionId);
        while (_durableStops.TryPeek(out long stop) && stop <= _durableUpTo)
            _durableStops.Dequeue();
        if (_durableUpTo >= _current.TransactionId)
            Readers.MarkIdle(DurableSlot);
        else if (Readers.IsActive(DurableSlot))
            Readers.Publish(DurableSlot, _history.NewestAtOrBefore(_durableUpTo).Epoch);
    }

    /// <summary>
    /// <paramref name="pages"/> with the transaction's page versions set and the pages it freed removed; the arrays of
    /// <paramref name="pages"/> it no longer reaches are added to <paramref name="replaced"/> (see <see cref="PageTable.ToBuilder(List{object})"/>).
    /// </summary>
    public static PageTable WithTransactionPages(PageTable pages, LowLevelTransaction tx, long transactionId, List<object> replaced)
        => WithTransactionPages(pages.ToBuilder(replaced), tx, transactionId);

    /// <summary>The same, in a builder already started on the table (a kept one: <see cref="PageTable.ToBuilder(List{object}, PageTable.Builder)"/>).</summary>
    public static PageTable WithTransactionPages(PageTable.Builder builder, LowLevelTransaction tx, long transactionId)
    {
        foreach (var (pageNumber, run) in tx.DirtyPages)
            builder.Set(pageNumber, new PageVersion(run.Pointer, transactionId, run.PageCount));
        foreach (var (pageNumber, _) in tx.FreedPages)
            builder.Remove(pageNumber);
        return builder.ToImmutable();
    }

    /// <summary>
    /// Publishes a transaction a replica applied from a shipped entry (<see cref="WithReplicatedPages"/>); what its runs
    /// replace and the versions of the pages it freed retire.
    /// </summary>
    public void PublishReplicated(long transactionId, RootRecord root, JournalPosition position,
        List<(long PageNumber, PageVersion Version)> runs, List<long> freedPages, Func<long, long> interiorOwner)
    {
        lock (_stateLock)
        {
            var current = _current;
            var retired = _reclaimer.Rent();
            var pages = WithReplicatedPages(current.Pages, runs, freedPages, interiorOwner, retired.ScratchVersions);
            PublishLocked(current.Committed(transactionId, current.Epoch + 1, pages, root, position), retired);
            ReclaimLocked();
        }
    }

    /// <summary>
    /// <paramref name="pages"/> after a replicated transaction: <paramref name="runs"/> (its page runs, rebuilt in scratch
    /// memory) set, replacing every version they overlap (an entry names the runs its transaction wrote, not those it freed,
    /// so a freed run's version may still sit under a new run of another shape; <paramref name="interiorOwner"/> finds a run
    /// that starts before a page and covers it), and the versions of <paramref name="freedPages"/> removed, as a commit's
    /// frees are. The removed versions go to <paramref name="removed"/> when given.
    /// </summary>
    public static PageTable WithReplicatedPages(PageTable pages, List<(long PageNumber, PageVersion Version)> runs, List<long> freedPages,
        Func<long, long> interiorOwner, List<(nint Pointer, int PageCount)>? removed)
    {
        var builder = pages.ToBuilder();
        var gone = new HashSet<long>();
        foreach (var (pageNumber, version) in runs)
        {
            for (long page = pageNumber; page < pageNumber + version.PageCount; page++)
                Remove(page);
            long owner = interiorOwner(pageNumber);
            if (owner >= 0 && owner < pageNumber && pages.TryGet(owner, out var covering) && owner + covering.PageCount > pageNumber)
                Remove(owner);
        }
        foreach (long page in freedPages)
            Remove(page);
        foreach (var (pageNumber, version) in runs)
            builder.Set(pageNumber, version);
        return builder.ToImmutable();

        void Remove(long page)
        {
            if (pages.TryGet(page, out var replaced) && gone.Add(page))
            {
                removed?.Add((replaced.Pointer, replaced.PageCount));
                builder.Remove(page);
            }
        }
    }

    /// <summary>
    /// The flusher's choice: the state the oldest reader sees, pinned in <paramref name="flusherSlot"/>, or
    /// null if it is not newer than <paramref name="flushedUpTo"/> (nothing to flush).
    /// </summary>
    public EnvironmentState? PinOldestReaderState(int flusherSlot, long flushedUpTo)
    {
        lock (_stateLock)
        {
            var state = _history.StateAt(Readers.OldestEpoch(_current.Epoch));
            if (state.TransactionId <= flushedUpTo)
                return null;
            // Reclaiming happens under this lock too, so nothing of the chosen state can go before the slot shows it.
            Readers.Publish(flusherSlot, state.Epoch);
            return state;
        }
    }

    /// <summary>
    /// Publishes the current state without the flushed versions it still has (a commit may have replaced
    /// some meanwhile), mapped anew if the data file grew, and lets the flusher's slot go.
    /// </summary>
    /// <param name="flushed">The page versions the flusher wrote to the data file, with the version each page had when written.</param>
    /// <param name="remapIfGrown">A new mapping if the data file grew past the given one, else null.</param>
    /// <param name="flusherSlot">The reader slot the flusher pinned its state with; released here.</param>
    public void PublishFlushed(List<(long PageNumber, PageVersion Version)> flushed, Func<MappedView, MappedView?> remapIfGrown, int flusherSlot)
    {
        lock (_stateLock)
        {
            var current = _current;
            var retired = _reclaimer.Rent();
            var pages = current.Pages.ToBuilder(retired.TableArrays);
            foreach (var (pageNumber, version) in flushed)
            {
                if (current.Pages.TryGet(pageNumber, out var now) && now.Pointer == version.Pointer && now.TransactionId == version.TransactionId)
                {
                    pages.Remove(pageNumber);
                    retired.ScratchVersions.Add((version.Pointer, version.PageCount));
                }
            }
            var view = current.View;
            if (remapIfGrown(view) is { } grown)
            {
                retired.View = view;
                view = grown;
            }
            if (!retired.IsEmpty)
                PublishLocked(current.WithPages(current.Epoch + 1, pages.ToImmutable(), view), retired);
            else
                _reclaimer.Retire(current.Epoch, retired);
            Readers.MarkIdle(flusherSlot);
            ReclaimLocked();
        }
    }

    /// <summary>On the writer: reclaims what no reader reaches, and makes freed pages nobody can see any more allocatable.</summary>
    public void ReclaimForWriter(FreeSpaceMap freeSpace)
    {
        lock (_stateLock)
        {
            ReclaimLocked();
            _reclaimer.ReleaseFreedPages(freeSpace);
        }
    }

    /// <summary>The transaction the oldest reader sees (for the message of a scratch-memory timeout).</summary>
    public long OldestReaderTransactionId()
    {
        lock (_stateLock)
            return _history.StateAt(Readers.OldestEpoch(Current.Epoch)).TransactionId;
    }

    /// <summary>Every freed page not yet allocatable (a reader may still see it, or the writer has not taken it): for the verifier.</summary>
    public HashSet<long> WaitingPages()
    {
        var waiting = new HashSet<long>();
        lock (_stateLock)
        {
            foreach (var (page, count) in _reclaimer.WaitingPages)
                for (long p = page; p < page + count; p++)
                    waiting.Add(p);
        }
        return waiting;
    }

    /// <summary>At close, with no reader left: frees every scratch version and mapping, retired or current.</summary>
    public void ReleaseAll()
    {
        lock (_stateLock)
        {
            _reclaimer.ReclaimAll();
            foreach (var (_, version) in _current.Pages)
                _scratch.Free((byte*)version.Pointer, version.PageCount);
            _current.View.Dispose();
            _history.Clear();
        }
    }

    /// <summary>Under the state lock: makes <paramref name="next"/> current and retires what it no longer reaches.</summary>
    private void PublishLocked(EnvironmentState next, RetiredResources retired)
    {
        _history.Add(next);
        Volatile.Write(ref _current, next);
        _reclaimer.Retire(next.Epoch, retired);
    }

    /// <summary>
    /// Under the state lock: frees what no reader can reach any more: everything retired up to the oldest held epoch,
    /// and, newer than that, each superseded version that none of the held states and none of the states the durable
    /// watermark may still stop at has (a page a fill rewrites transaction after transaction goes back warm at once,
    /// instead of when a lazy commit's write or the flusher lets the oldest epoch move).
    /// </summary>
    private void ReclaimLocked()
    {
        long currentEpoch = Volatile.Read(ref _current).Epoch;
        long oldest = Readers.OldestEpoch(currentEpoch);
        _reclaimer.Reclaim(oldest);
        if (_reclaimer.HasSweepable)
        {
            _reaching.Clear();
            Readers.CollectEpochs(currentEpoch, _reaching);
            _history.ToTransactionIds(_reaching);
            _reaching.AddRange(_durableStops);
            _reaching.Sort();
            _reclaimer.SweepSuperseded(System.Runtime.InteropServices.CollectionsMarshal.AsSpan(_reaching));
        }
        _history.Forget(oldest);
    }
}
