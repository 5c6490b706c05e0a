using Cairn.Journal;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// A member reuses its one <see cref="Cairn.Journal.Sharing.SharedWriteRequest"/> for its next entry as soon as the
/// group completes it: the group's writer must not read a request it has completed. A failed branch entry is
/// completed at once; if the writer then read that request again (to decide whether branch entries of its write
/// need linking), it saw the branch's next entry instead: not failed, not written, and "recorded" it (a null
/// file: a <see cref="NullReferenceException"/> on the writer's commit, a link count left raised, a close that
/// never ends). Native faults are process-wide, hence the collection.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class JournalGroupRequestReuseTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromMinutes(1);

    [Fact]
    public async Task A_branch_that_commits_again_at_once_after_a_full_disk_is_not_recorded_by_the_write_that_failed_it()
    {
        using var dir = new TestDirectory("group-reuse");
        using var group = new JournalGroupHarness(dir.Path, branches: 2, maxWritesInFlight: 1);
        JournalGroupHarness.Commit(group.Root, 1); // journal 1 in service, so the fault hits an entry write
        string rootFile = group.Root.Journal.JournalPath(1);
        var hooks = group.Group.ForTestingPurposesOnly();
        using var firstWriteHeld = new ManualResetEventSlim();
        using var retryWriteHeld = new ManualResetEventSlim();
        using var failedWriteSettled = new ManualResetEventSlim();
        using var failedWriterGoesOn = new ManualResetEventSlim();
        int writes = 0, settled = 0;
        hooks.WriteStarting = _ =>
        {
            int write = Interlocked.Increment(ref writes);
            if (write == 1)
                firstWriteHeld.Wait(); // branch 0's write, while the root and branch 1 queue behind it
            else if (write == 3)
                retryWriteHeld.Wait(); // branch 1's second entry, written by branch 1 itself
        };
        hooks.WriteSettled = () =>
        {
            if (Interlocked.Increment(ref settled) != 2)
                return;
            // The root's write of [root 2, branch 1's 7] failed; branch 1's request is completed and the root's
            // thread, the writer, is held here before it looks at its batch again.
            failedWriteSettled.Set();
            failedWriterGoesOn.Wait();
        };
        try
        {
            var branch0 = Task.Run(() => JournalGroupHarness.Commit(group.Branch(0), 5));
            Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref writes) == 1, Patience));
            var root = Task.Run(() => JournalGroupHarness.Commit(group.Root, 2));
            Assert.True(SpinWait.SpinUntil(() => group.Group.PendingCount == 1, Patience));
            var branch1 = Task.Run(() => JournalGroupHarness.Commit(group.Branch(1), 7));
            Assert.True(SpinWait.SpinUntil(() => group.Group.PendingCount == 2, Patience));

            // The held write (one system call) goes through; the next one, the root's with branch 1's entry, finds the disk full.
            PalFaultInjection.Arm(PalFaultKind.WriteError, after: 1, osError: 28, pathFilter: Path.GetFileName(rootFile));
            firstWriteHeld.Set();
            Assert.Equal(new JournalPosition(1, 2 * JournalEntryFactory.EmptyEntrySize), await branch0.WaitAsync(Patience));
            Assert.True(failedWriteSettled.Wait(Patience), "the failing write was not settled");
            await Assert.ThrowsAsync<DiskFullException>(() => branch1.WaitAsync(Patience));
            PalFaultInjection.Disarm();

            // Branch 1 commits again at once, reusing its request, while the failed write's writer is still held.
            var branch1Again = Task.Run(() => JournalGroupHarness.Commit(group.Branch(1), 7));
            Assert.True(SpinWait.SpinUntil(() => group.Group.PendingCount == 1, Patience));
            failedWriterGoesOn.Set();

            // The root's commit fails with the full disk, and nothing else: the writer did not touch branch 1's new entry.
            await Assert.ThrowsAsync<DiskFullException>(() => root.WaitAsync(Patience));
            retryWriteHeld.Set();
            Assert.Equal(new JournalPosition(1, 3 * JournalEntryFactory.EmptyEntrySize), await branch1Again.WaitAsync(Patience));
        }
        finally
        {
            PalFaultInjection.Disarm();
            hooks.WriteStarting = null;
            hooks.WriteSettled = null;
            firstWriteHeld.Set();
            retryWriteHeld.Set();
            failedWriterGoesOn.Set();
        }

        // Branch 1's entry is in the root's file once, linked once; the root goes on after it; the group closes.
        var entry = JournalHarness.EntryAt(rootFile, 2 * JournalEntryFactory.EmptyEntrySize);
        Assert.True(entry.IsValid, entry.ToString());
        Assert.Equal((7L, group.Branch(1).Journal.Entries.EnvironmentId), (entry.Header.TransactionId, entry.Header.EnvironmentId));
        Assert.Equal(3, PalFileSystem.LinkCount(rootFile)); // the root's name and each branch's link
        Assert.Equal(new JournalPosition(1, 4 * JournalEntryFactory.EmptyEntrySize), JournalGroupHarness.Commit(group.Root, 2));
        // A close waits for every write's recording: one left counted would never end.
        await Task.Run(group.Group.Close).WaitAsync(Patience);
    }
}
