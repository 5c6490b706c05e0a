using Cairn.Commit;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Paging;
using Cairn.Tests.Journal;
using Cairn.Transactions;
using static Cairn.Tests.Commit.CommitHarness;

namespace Cairn.Tests.Commit;

/// <summary>
/// The commit pipeline on its own, over a real data file, journal, free-space map and state publisher:
/// what a commit publishes and journals, an empty commit, the stages run by hand as the merger runs them,
/// a prepared transaction dropped after a failed write, and a failed write latching the environment's failure.
/// </summary>
public sealed unsafe class CommitPipelineTests
{
    // Needs an overflow run of several pages: the run is what the free-space tests allocate and free.
    private static readonly byte[] BigValue = Enumerable.Range(0, 20_000).Select(i => (byte)(i * 7)).ToArray();
    private static readonly byte[] SmallValue = Enumerable.Range(0, 100).Select(i => (byte)i).ToArray();

    [Fact]
    public void Commit_publishes_the_next_transaction_with_its_pages_and_journals_one_entry_with_its_root()
    {
        using var h = new CommitHarness("commit-pipeline");
        var before = h.States.Current;
        var tx = h.BeginWrite();
        Put(tx, "small", SmallValue);
        Put(tx, "big", BigValue);
        var runs = tx.DirtyPages.ToDictionary(d => d.Key, d => d.Value);
        // What a diff record in the entry is applied to: the page as it was before the transaction.
        var bases = runs.Where(r => !r.Value.IsNew).ToDictionary(r => r.Key, r => Bytes(tx.GetCommittedPage(r.Key), r.Value.PageCount));
        var root = tx.Root;
        h.Commit(tx);

        var after = h.States.Current;
        Assert.Equal(before.TransactionId + 1, after.TransactionId);
        Assert.Equal(root, after.Root);
        Assert.Equal(1, h.Publications);
        Assert.Equal(runs.Count, after.Pages.Count);
        foreach (var (pageNumber, run) in runs)
        {
            Assert.True(after.Pages.TryGet(pageNumber, out var version), $"page {pageNumber} was not published");
            Assert.Equal((run.Pointer, after.TransactionId, run.PageCount), (version.Pointer, version.TransactionId, version.PageCount));
        }

        var journal = new JournalReadBack(Assert.Single(h.JournalFiles()));
        var entry = Assert.Single(journal.Entries);
        Assert.Equal(JournalEntryProblem.Empty, journal.End);
        Assert.Equal(after.TransactionId, entry.Header.TransactionId);
        Assert.Equal(h.EnvironmentId, entry.Header.EnvironmentId);
        Assert.Equal(after.Root, entry.Header.Root);
        Assert.Equal(new JournalPosition(1, entry.EntrySize), after.JournalPosition);
        // Replayed, the entry gives exactly the pages that were published.
        using var target = new MemoryTarget();
        foreach (var (pageNumber, bytes) in bases)
            target.Set(pageNumber, bytes);
        Assert.Equal(runs.Count, journal.Apply(entry, target));
        foreach (var (pageNumber, run) in runs)
            Assert.Equal(h.CurrentBytes(pageNumber, run.PageCount), target.Bytes(pageNumber));
    }

    [Fact]
    public void An_empty_transaction_writes_nothing_and_keeps_its_id()
    {
        using var h = new CommitHarness("commit-empty");
        var before = h.States.Current;
        h.Commit(h.BeginWrite());
        Assert.Same(before, h.States.Current);
        Assert.Equal(0, h.Publications);
        Assert.Empty(h.JournalFiles());
        Assert.Empty(h.IoStats.Snapshot());

        // Prepared by hand, it says so: no entry, and the id it read.
        using var commit = new PreparedCommit();
        h.Pipeline.Prepare(h.BeginWrite(), commit);
        Assert.False(commit.HasEntry);
        Assert.Equal(before.TransactionId, commit.TransactionId);
    }

    [Fact]
    public void The_stages_run_by_hand_give_what_Commit_gives()
    {
        using var whole = new CommitHarness("commit-whole");
        using var split = new CommitHarness("commit-split");
        var wholeTx = whole.BeginWrite();
        var splitTx = split.BeginWrite();
        foreach (var tx in new[] { wholeTx, splitTx })
        {
            Put(tx, "small", SmallValue);
            Put(tx, "big", BigValue);
        }
        whole.Commit(wholeTx);

        using var commit = new PreparedCommit();
        split.Pipeline.Prepare(splitTx, commit);
        Assert.True(commit.HasEntry);
        var stateAfter = split.Pipeline.BuildStateAfter(commit);
        Assert.Equal(1, stateAfter.TransactionId);
        split.Pipeline.Write(commit);
        // Durable, not yet visible.
        Assert.Equal(0, split.States.Current.TransactionId);
        split.Pipeline.Publish(commit);
        split.EndWrite();
        // Nothing was published in between, so the table built before the write is the one published.
        Assert.Same(stateAfter.Pages, split.States.Current.Pages);

        var (expected, actual) = (whole.States.Current, split.States.Current);
        Assert.Equal(expected.TransactionId, actual.TransactionId);
        Assert.Equal(expected.Root, actual.Root);
        Assert.Equal(expected.JournalPosition, actual.JournalPosition);
        Assert.Equal(1, split.Publications);
        Assert.Equal(PageNumbers(expected), PageNumbers(actual));
        foreach (var (pageNumber, version) in PagesOf(expected))
            Assert.Equal(whole.CurrentBytes(pageNumber, version.PageCount), split.CurrentBytes(pageNumber, version.PageCount));

        var wholeJournal = new JournalReadBack(Assert.Single(whole.JournalFiles()));
        var splitJournal = new JournalReadBack(Assert.Single(split.JournalFiles()));
        var (wholeEntry, splitEntry) = (Assert.Single(wholeJournal.Entries), Assert.Single(splitJournal.Entries));
        Assert.Equal(wholeEntry.Header.TransactionId, splitEntry.Header.TransactionId);
        Assert.Equal(wholeEntry.Header.Root, splitEntry.Header.Root);
        Assert.Equal(wholeEntry.Header.PageCount, splitEntry.Header.PageCount);
        Assert.Equal(wholeJournal.Payload(wholeEntry), splitJournal.Payload(splitEntry));
    }

    [Fact]
    public void A_transaction_dropped_after_its_prepare_gives_its_allocations_back()
    {
        using var h = new CommitHarness("commit-discard");
        // Transaction 1 writes a value in an overflow run, transaction 2 deletes it: the run is free.
        var tx = h.BeginWrite();
        Put(tx, "big", BigValue);
        var (run, runLength) = tx.DirtyPages.Where(d => d.Value.PageCount > 1).Select(d => (d.Key, d.Value.PageCount)).Single();
        h.Commit(tx);
        tx = h.BeginWrite();
        Delete(tx, "big");
        h.Commit(tx);

        // Nobody sees the run any more, so the writer may take it: a value of the same size does.
        tx = h.BeginWrite();
        Assert.True(IsAvailable(h, run, runLength));
        long available = h.FreeSpace.AvailablePages;
        Put(tx, "big", BigValue);
        Assert.True(tx.DirtyPages.ContainsKey(run));
        Assert.False(h.FreeSpace.IsAvailable(run));
        using var commit = new PreparedCommit();
        h.Pipeline.Prepare(tx, commit);
        Assert.Contains((run, runLength), commit.Allocations);

        // The write failed: the prepared transaction is dropped, and leaves nothing behind.
        var published = h.States.Current;
        h.Pipeline.Discard(tx, commit);
        h.EndWrite();
        Assert.True(IsAvailable(h, run, runLength));
        Assert.Equal(available, h.FreeSpace.AvailablePages);
        Assert.Empty(commit.Allocations);
        Assert.Empty(tx.DirtyPages);
        Assert.Same(published, h.States.Current);

        // The next transaction takes the same run again.
        tx = h.BeginWrite();
        Put(tx, "big", BigValue);
        Assert.True(tx.DirtyPages.ContainsKey(run));
        h.Commit(tx);
        Assert.Equal(3, h.States.Current.TransactionId);
    }

    [Fact]
    public void A_failed_write_latches_the_failure_and_the_next_commit_is_refused_without_a_trace()
    {
        using var h = new CommitHarness("commit-failwrite");
        var cause = new IOException("the journal's device is gone");
        var failed = h.Pipeline.FailWrite(new JournalWriteFatalException("journal", 0, cause));
        Assert.True(h.Failure.HasFailed);
        Assert.Same(cause, failed.InnerException);
        Assert.Equal("writing the journal (merged transaction)", failed.Operation);

        var tx = h.BeginWrite();
        Put(tx, "small", SmallValue);
        var published = h.States.Current;
        Assert.Throws<EnvironmentFailedException>(() => h.Commit(tx));
        Assert.Same(published, h.States.Current);
        Assert.Empty(tx.DirtyPages);
        Assert.Empty(h.JournalFiles());
    }

    private static bool IsAvailable(CommitHarness h, long pageNumber, int count)
        => Enumerable.Range(0, count).All(i => h.FreeSpace.IsAvailable(pageNumber + i));

    private static byte[] Bytes(byte* page, int pageCount) => new ReadOnlySpan<byte>(page, pageCount * StorageConstants.PageSize).ToArray();

    private static List<(long PageNumber, PageVersion Version)> PagesOf(EnvironmentState state)
    {
        var pages = new List<(long, PageVersion)>();
        foreach (var (pageNumber, version) in state.Pages)
            pages.Add((pageNumber, version));
        return pages;
    }

    private static IEnumerable<long> PageNumbers(EnvironmentState state) => PagesOf(state).Select(p => p.PageNumber).Order();
}
