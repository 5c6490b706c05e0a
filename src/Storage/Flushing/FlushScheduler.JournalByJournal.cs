using Cairn.Diagnostics;
using Cairn.Errors;
using Cairn.Journal;
using Cairn.Pal;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn.Flushing;

/// <summary>
/// A checkpoint that goes journal by journal when the disk is too full to take everything at once (issue 30, item 3).
/// A whole flush must grow the data file by every page the journals hold before any journal can go, so on a small disk
/// the journals and their pages' new home can never both fit. In steps, the space needed beyond what is on disk stays
/// about one journal's pages: each step makes the data file current as of the last transaction of the oldest journal
/// kept (its sync point: that entry's root record and end), syncs, writes the header there in both copies, and deletes
/// that journal, whose space the next step can then use (docs/design.md, "Flush and sync").
/// </summary>
/// <remarks>
/// <para>What a step writes. For a header at sync point <c>B</c>, recovery replays every entry after <c>B</c> over the
/// data file, so each page must hold a version from <c>B</c>'s or later (docs/on-disk-format.md, "Diff operations").
/// Pages at or above <c>B</c>'s high-water mark did not exist at <c>B</c>: replay builds them as the commits did. Every
/// page below it that has a version newer than the last flush is written, with the flushed state's version (at or after
/// <c>B</c>'s): so a step writes the runs that start in [previous step's mark, <c>B</c>'s mark) and grows the file to
/// that mark; the last step writes the rest and syncs at the state itself. High-water marks never go down, so the
/// steps split the one flush the state needed into page ranges, and no page is written twice.</para>
/// <para>Order. A journal is released only by the sync of a step whose header, in both copies, is at or past its last
/// transaction, and only after the data file was synced under that header: a crash between any two steps leaves a
/// header whose journals are all there.</para>
/// </remarks>
internal sealed partial class FlushScheduler
{
    /// <summary>Under the gate: flushes the oldest reader's state whole, or, when the disk is too full for it, journal by journal.</summary>
    private void FlushOrGoJournalByJournal()
    {
        try
        {
            FlushOnce();
        }
        catch (DiskFullException) when (_syncHolds.Count == 0)
        {
            // A backup holds syncs (and so every release): steps would free nothing; the whole flush waits for room.
            FlushJournalByJournal();
        }
    }

    /// <summary>
    /// Under the gate, with no sync held: the steps described on the class. A step that still finds no room throws
    /// <see cref="DiskFullException"/> saying how many bytes its growth needed (the steps before it are synced and
    /// their journals gone); a failed sync fails the environment, as any failed sync does.
    /// </summary>
    private void FlushJournalByJournal()
    {
        // What a flush wrote before is made durable first: it needs no space and releases the journals it covers.
        if (_flushedUpTo > _syncedUpTo)
            SyncStep();
        _target.DeleteSpareJournals();
        var state = _states.PinOldestReaderState(_flusherSlot, _flushedUpTo);
        if (state is null)
            return;
        var written = new List<(long PageNumber, PageVersion Version)>();
        long since = _flushedUpTo;
        try
        {
            long from = 0;
            foreach (var end in _target.JournalEnds(_flushedUpTo, state.TransactionId))
            {
                long mark = Math.Max(from, end.Root.NextPageNumber);
                WriteStep(state, since, new FlushStep(from, mark, mark, end.TransactionId), written);
                from = mark;
                _flushedUpTo = end.TransactionId;
                _flushedPoint = end;
                SyncStep();
            }
            WriteStep(state, since, new FlushStep(from, long.MaxValue, state.NextPageNumber, state.TransactionId), written);
        }
        finally
        {
            // What the steps wrote leaves the page table (readers find it in the data file), and the flusher's slot goes.
            _states.PublishFlushed(written, _remapIfGrown, _flusherSlot);
        }
        Flushed(state);
    }

    /// <summary>Writes one step's runs of <paramref name="state"/> (newer than <paramref name="since"/>) and adds them to <paramref name="written"/>.</summary>
    private void WriteStep(EnvironmentState state, long since, FlushStep step,
        List<(long PageNumber, PageVersion Version)> written)
    {
        long start = _time.GetTimestamp();
        try
        {
            written.AddRange(_target.WritePages(state, since, step, out long bytes));
            RecordIo(IoOperationKind.DataFlush, start, bytes, _flushedUpTo, step.UpTo, failed: false);
        }
        catch
        {
            RecordIo(IoOperationKind.DataFlush, start, 0, _flushedUpTo, step.UpTo, failed: true);
            throw;
        }
    }

    /// <summary>A step's sync: both header copies at the step's sync point, and the journals it covers deleted, none kept for reuse.</summary>
    private void SyncStep()
    {
        try
        {
            SyncOnce(catchUpOlderCopy: true, keepSpares: false);
        }
        catch (Exception e)
        {
            throw _failure.Fail("syncing the data file", e);
        }
    }
}
