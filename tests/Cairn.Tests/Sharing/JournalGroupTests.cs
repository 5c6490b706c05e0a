using Cairn.Diagnostics;
using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Reports;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// <see cref="Cairn.Journal.Sharing.JournalGroup"/> and its members on their own: a branch's entry goes into
/// the root's journal, stamped with its writer, and the file is linked into the branch's folder before the
/// append returns; entries that wait while a write is under way go together in the next one, one write
/// system call, bounded in count; a root that closed sends members to their own journals; a failed write
/// fails every entry it carried. Native write counts and faults are process-wide, hence the collection.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class JournalGroupTests
{
    [Fact]
    public void A_branch_entry_lands_in_the_root_journal_and_is_linked_into_the_branch_folder()
    {
        using var dir = new TestDirectory("group-link");
        using var group = new JournalGroupHarness(dir.Path, branches: 1);
        var branch = group.Branch(0);

        var position = JournalGroupHarness.Commit(branch, 7);
        var rootPosition = JournalGroupHarness.Commit(group.Root, 3);

        Assert.Equal(new JournalPosition(1, JournalEntryFactory.EmptyEntrySize), position);
        Assert.Equal(new JournalPosition(1, 2 * JournalEntryFactory.EmptyEntrySize), rootPosition);
        string rootFile = group.Root.Journal.JournalPath(1), link = branch.Journal.JournalPath(1);
        Assert.True(PalFileSystem.SameFile(rootFile, link));
        Assert.Equal(2, PalFileSystem.LinkCount(rootFile));
        var entry = JournalHarness.EntryAt(rootFile, 0);
        Assert.True(entry.IsValid, entry.ToString());
        Assert.Equal(branch.Journal.Entries.EnvironmentId, entry.Header.EnvironmentId);
        Assert.Equal(group.RootId, entry.Header.WrittenBy);
        Assert.Equal(0, entry.Header.OffsetInWrite);
        var own = JournalHarness.EntryAt(rootFile, JournalEntryFactory.EmptyEntrySize);
        Assert.True(own.IsValid, own.ToString());
        Assert.Equal(Guid.Empty, own.Header.WrittenBy);
        // The branch's next entry in the same root file needs no new link.
        Assert.Equal(new JournalPosition(1, 3 * JournalEntryFactory.EmptyEntrySize), JournalGroupHarness.Commit(branch, 8));
        Assert.Equal(2, PalFileSystem.LinkCount(rootFile));
        Assert.False(File.Exists(branch.Journal.JournalPath(2)));
    }

    [Fact]
    public async Task Entries_waiting_during_a_write_go_together_in_the_next_one_with_one_system_call()
    {
        using var dir = new TestDirectory("group-batch");
        using var group = new JournalGroupHarness(dir.Path, branches: 2, maxWritesInFlight: 1);
        JournalGroupHarness.Commit(group.Root, 1); // opens (and pre-zeroes) journal 1 before the count starts
        using var held = HeldFirstWrite.Hold(group.Group);
        long before = PalFaultInjection.WriteCalls;

        var (batches, positions) = await CommitWhileAWriteIsHeld(group, held, branches: 2);

        Assert.Equal([1, 2], batches);
        // Two journal writes; a link (and its directory sync) writes nothing.
        Assert.Equal(2, PalFaultInjection.WriteCalls - before);
        Assert.Equal([new JournalPosition(1, 12288), new JournalPosition(1, 16384)], positions);
        string rootFile = group.Root.Journal.JournalPath(1);
        Assert.Equal(3, PalFileSystem.LinkCount(rootFile));
        Assert.Equal([0L, 4096], OffsetsInWrite(rootFile, group.RootId, from: 8192, count: 2));
        // The root records each write once: the shared one with the entries and environments it carried.
        var writes = group.Root.Journal.IoStats.Snapshot().Where(op => op.Kind == IoOperationKind.JournalWrite).ToArray();
        Assert.Equal([(1, 1, 1L), (1, 1, 2L), (2, 2, -1L)], writes.Select(op => (op.TransactionCount, op.EnvironmentCount, op.FirstTransactionId)));
        Assert.Contains("- (2 tx, 2 env)", group.Root.Journal.IoStats.FormatSummary(10));
    }

    [Fact]
    public async Task A_write_that_fills_the_journal_goes_on_in_the_next_one()
    {
        using var dir = new TestDirectory("group-switch");
        using var group = new JournalGroupHarness(dir.Path, branches: 4, maxWritesInFlight: 1);
        JournalGroupHarness.Commit(group.Root, 1);
        using var held = HeldFirstWrite.Hold(group.Group);
        long before = PalFaultInjection.WriteCalls;

        var (batches, positions) = await CommitWhileAWriteIsHeld(group, held, branches: 4);

        // 16 KiB journals: two entries fill journal 1, two go to journal 2 (its pre-zeroing is a write too).
        Assert.Equal([1, 4], batches);
        Assert.Equal(4, PalFaultInjection.WriteCalls - before);
        Assert.Equal([new JournalPosition(1, 12288), new JournalPosition(1, 16384), new JournalPosition(1, 4096), new JournalPosition(1, 8192)],
            positions);
        Assert.Equal(3, PalFileSystem.LinkCount(group.Root.Journal.JournalPath(1)));
        Assert.Equal(3, PalFileSystem.LinkCount(group.Root.Journal.JournalPath(2)));
        Assert.True(PalFileSystem.SameFile(group.Root.Journal.JournalPath(2), group.Branch(3).Journal.JournalPath(1)));
        Assert.Equal([0L, 4096], OffsetsInWrite(group.Root.Journal.JournalPath(2), group.RootId, from: 0, count: 2));
    }

    /// <summary>
    /// The root commits transaction 2 and its write is held; meanwhile each branch commits; then the write is let
    /// go. Returns the writes' entry counts and the branches' positions.
    /// </summary>
    private static async Task<(int[] Batches, JournalPosition[] Positions)> CommitWhileAWriteIsHeld(JournalGroupHarness group, HeldFirstWrite held, int branches)
    {
        var rootCommit = Task.Run(() => JournalGroupHarness.Commit(group.Root, 2));
        Assert.True(SpinWait.SpinUntil(() => { lock (held.Batches) return held.Batches.Count == 1; }, TimeSpan.FromMinutes(1)));
        var branchCommits = new Task<JournalPosition>[branches];
        for (int b = 0; b < branches; b++)
        {
            int branch = b;
            // One at a time into the queue, so the order of the write is the order of the branches.
            branchCommits[b] = Task.Run(() => JournalGroupHarness.Commit(group.Branch(branch), 10 + branch));
            Assert.True(SpinWait.SpinUntil(() => group.Group.PendingCount == branch + 1, TimeSpan.FromMinutes(1)));
        }
        held.Release.Set();
        await rootCommit.WaitAsync(TimeSpan.FromMinutes(1));
        var positions = await Task.WhenAll(branchCommits).WaitAsync(TimeSpan.FromMinutes(1));
        lock (held.Batches)
            return ([.. held.Batches], positions);
    }

    private static List<long> OffsetsInWrite(string file, Guid writer, long from, int count)
    {
        var offsets = new List<long>();
        for (int i = 0; i < count; i++)
        {
            var entry = JournalHarness.EntryAt(file, from + i * JournalEntryFactory.EmptyEntrySize);
            Assert.True(entry.IsValid, entry.ToString());
            Assert.Equal(writer, entry.Header.WrittenBy);
            offsets.Add(entry.Header.OffsetInWrite);
        }
        return offsets;
    }

    [Fact]
    public async Task A_write_carries_at_most_the_configured_number_of_entries()
    {
        using var dir = new TestDirectory("group-bound");
        using var group = new JournalGroupHarness(dir.Path, branches: 3, maxEntriesPerWrite: 2, maxWritesInFlight: 1);
        using var held = HeldFirstWrite.Hold(group.Group);

        var (batches, _) = await CommitWhileAWriteIsHeld(group, held, branches: 3);

        Assert.Equal([1, 2, 1], batches);
    }

    [Fact]
    public void After_the_root_closes_members_write_their_own_journals()
    {
        using var dir = new TestDirectory("group-closed");
        using var group = new JournalGroupHarness(dir.Path, branches: 1);
        var branch = group.Branch(0);
        JournalGroupHarness.Commit(branch, 1);

        group.Group.Close();
        var position = JournalGroupHarness.Commit(branch, 2);

        Assert.False(branch.Member.Sharing);
        // Journal 1 is the link; the branch's own journal comes next, with an entry no other environment wrote.
        Assert.Equal(new JournalPosition(2, JournalEntryFactory.EmptyEntrySize), position);
        var entry = JournalHarness.EntryAt(branch.Journal.JournalPath(2), 0);
        Assert.True(entry.IsValid, entry.ToString());
        Assert.Equal(2, entry.Header.TransactionId);
        Assert.Equal(Guid.Empty, entry.Header.WrittenBy);
        Assert.Equal(1, PalFileSystem.LinkCount(branch.Journal.JournalPath(2)));
    }

    [Fact]
    public async Task A_full_disk_fails_every_entry_of_the_write_and_wipes_them_all()
    {
        using var dir = new TestDirectory("group-full");
        using var group = new JournalGroupHarness(dir.Path, branches: 2, maxWritesInFlight: 1);
        JournalGroupHarness.Commit(group.Root, 1); // journal 1 in service, so the fault hits an entry write
        string rootFile = group.Root.Journal.JournalPath(1);
        using var firstWriteHeld = new ManualResetEventSlim();
        int writes = 0;
        group.Group.ForTestingPurposesOnly().WriteStarting = _ =>
        {
            if (Interlocked.Increment(ref writes) == 1)
                firstWriteHeld.Wait();
        };
        var holder = Task.Run(() => JournalGroupHarness.Commit(group.Root, 2));
        Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref writes) == 1, TimeSpan.FromMinutes(1)));
        var failing = Enumerable.Range(0, 2).Select(b => Task.Run(() => JournalGroupHarness.Commit(group.Branch(b), 5))).ToArray();
        Assert.True(SpinWait.SpinUntil(() => group.Group.PendingCount == 2, TimeSpan.FromMinutes(1)));
        // Where the two branch entries will go, whole entries as if a failed write had put them there: the
        // group must wipe them, or recovery could replay a transaction its environment rolled back.
        using (var stale = new JournalEntryFactory(group.Branch(0).Journal.Entries.EnvironmentId))
        using (var file = new FileStream(rootFile, FileMode.Open, FileAccess.Write))
        {
            var bytes = stale.Build(5);
            file.Position = 2 * JournalEntryFactory.EmptyEntrySize;
            file.Write(bytes);
            file.Write(bytes);
        }
        Assert.True(JournalHarness.EntryAt(rootFile, 2 * JournalEntryFactory.EmptyEntrySize).IsValid);
        try
        {
            // The held write (one system call) goes through; the next one, both branch entries, finds the disk full.
            PalFaultInjection.Arm(PalFaultKind.WriteError, after: 1, osError: 28, pathFilter: Path.GetFileName(rootFile));
            firstWriteHeld.Set();
            await holder.WaitAsync(TimeSpan.FromMinutes(1));
            foreach (var task in failing)
                await Assert.ThrowsAsync<DiskFullException>(() => task.WaitAsync(TimeSpan.FromMinutes(1)));
        }
        finally
        {
            PalFaultInjection.Disarm();
        }
        // Nothing of either entry can be replayed; the branches linked nothing.
        for (long offset = 2 * JournalEntryFactory.EmptyEntrySize; offset < JournalHarness.FileSize; offset += JournalEntryFactory.EmptyEntrySize)
            Assert.False(JournalHarness.EntryAt(rootFile, offset).IsValid, $"offset {offset}");
        Assert.Equal(1, PalFileSystem.LinkCount(rootFile));
        // The group goes on: the next write reuses the place.
        Assert.Equal(new JournalPosition(1, 3 * JournalEntryFactory.EmptyEntrySize), JournalGroupHarness.Commit(group.Root, 3));
    }

    [Fact]
    public void An_io_error_fails_every_entry_of_the_write_and_every_later_one()
    {
        using var dir = new TestDirectory("group-eio");
        using var group = new JournalGroupHarness(dir.Path, branches: 1);
        JournalGroupHarness.Commit(group.Root, 1);
        try
        {
            PalFaultInjection.Arm(PalFaultKind.WriteError, osError: 5, pathFilter: Path.GetFileName(group.Root.Journal.JournalPath(1)));
            var error = Assert.Throws<JournalWriteFatalException>(() => JournalGroupHarness.Commit(group.Branch(0), 1));
            Assert.Contains(group.Root.Journal.JournalPath(1), error.Message);
        }
        finally
        {
            PalFaultInjection.Disarm();
        }
        Assert.Throws<JournalWriteFatalException>(() => JournalGroupHarness.Commit(group.Root, 2));
        Assert.Throws<JournalWriteFatalException>(() => JournalGroupHarness.Commit(group.Branch(0), 1));
    }

    /// <summary>
    /// The root's write of transaction 2 claims its span and is held before it reaches the device; meanwhile
    /// branch 0 commits: its write is claimed after the held one and goes to the device beside it. Returns the
    /// root's and the branch's commits once the branch's write has returned (the held one still not sent).
    /// </summary>
    private static (Task<JournalPosition> Root, Task<JournalPosition> Branch) SendAWriteBesideAHeldOne(
        JournalGroupHarness group, ManualResetEventSlim release)
    {
        int performing = 0;
        group.Root.Journal.Journal.ForTestingPurposesOnly().GroupWritePerforming = _ =>
        {
            if (Interlocked.Increment(ref performing) == 1)
                release.Wait();
        };
        var root = Task.Run(() => JournalGroupHarness.Commit(group.Root, 2));
        Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref performing) == 1, TimeSpan.FromMinutes(1)));
        long before = PalFaultInjection.WriteCalls;
        var branch = Task.Run(() => JournalGroupHarness.Commit(group.Branch(0), 5));
        Assert.True(SpinWait.SpinUntil(() => PalFaultInjection.WriteCalls - before == 1, TimeSpan.FromMinutes(1)),
            "the branch's write did not go out while the root's was held");
        return (root, branch);
    }

    [Fact]
    public async Task A_write_goes_out_while_an_earlier_one_is_in_flight_and_is_acknowledged_only_after_it()
    {
        using var dir = new TestDirectory("group-pipeline");
        using var group = new JournalGroupHarness(dir.Path, branches: 1, maxWritesInFlight: 2);
        JournalGroupHarness.Commit(group.Root, 1);
        using var release = new ManualResetEventSlim();
        string rootFile = group.Root.Journal.JournalPath(1);

        var (root, branch) = SendAWriteBesideAHeldOne(group, release);
        // The branch's entry is on the disk, after the held span: it cannot be acknowledged before that span is.
        Assert.True(JournalHarness.EntryAt(rootFile, 2 * JournalEntryFactory.EmptyEntrySize).IsValid);
        Thread.Sleep(50);
        Assert.False(branch.IsCompleted);
        Assert.False(File.Exists(group.Branch(0).Journal.JournalPath(1)));
        release.Set();

        Assert.Equal(new JournalPosition(1, 2 * JournalEntryFactory.EmptyEntrySize), await root.WaitAsync(TimeSpan.FromMinutes(1)));
        Assert.Equal(new JournalPosition(1, 3 * JournalEntryFactory.EmptyEntrySize), await branch.WaitAsync(TimeSpan.FromMinutes(1)));
        Assert.True(PalFileSystem.SameFile(rootFile, group.Branch(0).Journal.JournalPath(1)));
        // The branch's entry says its write may be torn with everything back to the held write's start.
        Assert.Equal([JournalEntryFactory.EmptyEntrySize], OffsetsInWrite(rootFile, group.RootId, from: 2 * JournalEntryFactory.EmptyEntrySize, count: 1));
        var own = JournalHarness.EntryAt(rootFile, JournalEntryFactory.EmptyEntrySize);
        Assert.Equal((2L, 0L), (own.Header.TransactionId, own.Header.OffsetInWrite));
    }

    [Fact]
    public async Task A_full_disk_on_a_write_fails_the_writes_sent_after_it_wipes_them_and_the_journal_goes_on_where_it_began()
    {
        using var dir = new TestDirectory("group-pipeline-full");
        using var group = new JournalGroupHarness(dir.Path, branches: 1, maxWritesInFlight: 2);
        string rootFile = group.Root.Journal.JournalPath(1);

        var (root, branch) = await FailTheHeldWrite(group, osError: 28);

        Assert.IsType<DiskFullException>(root);
        Assert.IsType<DiskFullException>(branch);
        // The branch's durable entry was wiped (its environment rolls the transaction back), and it linked nothing.
        Assert.False(JournalHarness.EntryAt(rootFile, 2 * JournalEntryFactory.EmptyEntrySize).IsValid);
        Assert.Equal(1, PalFileSystem.LinkCount(rootFile));
        // The next write goes where the failed one began.
        Assert.Equal(new JournalPosition(1, 2 * JournalEntryFactory.EmptyEntrySize), JournalGroupHarness.Commit(group.Root, 2));
        Assert.Equal(new JournalPosition(1, 3 * JournalEntryFactory.EmptyEntrySize), JournalGroupHarness.Commit(group.Branch(0), 5));
    }

    [Fact]
    public async Task An_io_error_on_a_write_fails_the_writes_sent_after_it_and_the_group_for_good()
    {
        using var dir = new TestDirectory("group-pipeline-eio");
        using var group = new JournalGroupHarness(dir.Path, branches: 1, maxWritesInFlight: 2);

        var (root, branch) = await FailTheHeldWrite(group, osError: 5);

        // Both name the failed write, the one whose write went through too.
        Assert.Equal(JournalEntryFactory.EmptyEntrySize, Assert.IsType<JournalWriteFatalException>(root).Offset);
        Assert.Equal(JournalEntryFactory.EmptyEntrySize, Assert.IsType<JournalWriteFatalException>(branch).Offset);
        Assert.Equal(1, PalFileSystem.LinkCount(group.Root.Journal.JournalPath(1)));
        Assert.Throws<JournalWriteFatalException>(() => JournalGroupHarness.Commit(group.Root, 2));
        Assert.Throws<JournalWriteFatalException>(() => JournalGroupHarness.Commit(group.Branch(0), 5));
    }

    /// <summary>
    /// After the root's transaction 1: the root's write of transaction 2 is held while the branch's goes to the
    /// disk (whole) beside it; then the held write is let go and fails with <paramref name="osError"/>. Returns
    /// what each commit threw.
    /// </summary>
    private static async Task<(Exception? Root, Exception? Branch)> FailTheHeldWrite(JournalGroupHarness group, int osError)
    {
        JournalGroupHarness.Commit(group.Root, 1);
        string rootFile = group.Root.Journal.JournalPath(1);
        using var release = new ManualResetEventSlim();
        try
        {
            // The branch's write (sent first) goes through; the held one, sent when released, fails.
            PalFaultInjection.Arm(PalFaultKind.WriteError, after: 1, osError: osError, pathFilter: Path.GetFileName(rootFile));
            var (root, branch) = SendAWriteBesideAHeldOne(group, release);
            Assert.True(JournalHarness.EntryAt(rootFile, 2 * JournalEntryFactory.EmptyEntrySize).IsValid);
            release.Set();
            return (await Record.ExceptionAsync(() => root.WaitAsync(TimeSpan.FromMinutes(1))),
                await Record.ExceptionAsync(() => branch.WaitAsync(TimeSpan.FromMinutes(1))));
        }
        finally
        {
            PalFaultInjection.Disarm();
            group.Root.Journal.Journal.ForTestingPurposesOnly().GroupWritePerforming = null;
            release.Set();
        }
    }

    [Fact]
    public void A_root_journal_that_a_branch_still_links_is_deleted_not_recycled()
    {
        using var dir = new TestDirectory("group-release");
        using var group = new JournalGroupHarness(dir.Path, branches: 1);
        var branch = group.Branch(0);
        // 16 KiB journals hold four empty entries: the fifth goes to journal 2.
        JournalGroupHarness.Commit(group.Root, 1);
        JournalGroupHarness.Commit(branch, 1);
        JournalGroupHarness.Commit(group.Root, 2);
        JournalGroupHarness.Commit(group.Root, 3);
        JournalGroupHarness.Commit(group.Root, 4);
        string rootFile = group.Root.Journal.JournalPath(1);
        Assert.True(File.Exists(group.Root.Journal.JournalPath(2)));

        var (deleted, recycled) = group.Root.Journal.Journal.Release(syncedTransactionId: 4);

        Assert.Equal((1, 0), (deleted, recycled));
        Assert.False(File.Exists(rootFile));
        Assert.Empty(group.Root.Journal.Inventory.Snapshot().Recyclable);
        // The branch's name keeps the file and its entry.
        var entry = JournalHarness.EntryAt(branch.Journal.JournalPath(1), JournalEntryFactory.EmptyEntrySize);
        Assert.True(entry.IsValid, entry.ToString());
        Assert.Equal(branch.Journal.Entries.EnvironmentId, entry.Header.EnvironmentId);
    }

    [Fact]
    public void A_root_journal_a_branch_has_yet_to_link_is_not_released()
    {
        using var dir = new TestDirectory("group-pin");
        using var group = new JournalGroupHarness(dir.Path, branches: 0);
        for (long tx = 1; tx <= 5; tx++) // four fill journal 1, the fifth opens journal 2
            JournalGroupHarness.Commit(group.Root, tx);
        string first = group.Root.Journal.JournalPath(1);
        var inventory = group.Root.Journal.Inventory;

        inventory.Pin(first);
        inventory.Pin(first);
        Assert.Equal((0, 0), group.Root.Journal.Journal.Release(syncedTransactionId: 5));
        inventory.Unpin(first);
        Assert.Equal((0, 0), group.Root.Journal.Journal.Release(syncedTransactionId: 5));
        Assert.True(File.Exists(first));
        inventory.Unpin(first);
        var (deleted, recycled) = group.Root.Journal.Journal.Release(syncedTransactionId: 5);
        Assert.Equal(1, deleted + recycled);
        Assert.False(File.Exists(first));
    }
}
