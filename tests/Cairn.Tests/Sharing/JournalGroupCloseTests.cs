using Cairn.Journal;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// <see cref="Cairn.Journal.Sharing.JournalGroup.Close"/>: a root closing while its group writes waits for the write
/// under way to be written and recorded, blocked on a signal (it does not poll), and returns when the write ends.
/// The write is held in the group's hook, so every interleaving here is forced, none is timed. Native faults are
/// process-wide, hence the collection.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class JournalGroupCloseTests
{
    private static readonly TimeSpan s_hangGuard = TimeSpan.FromMinutes(1);

    [Fact]
    public async Task Close_waits_for_the_write_under_way_and_returns_once_it_is_recorded()
    {
        using var dir = new TestDirectory("group-close");
        using var group = new JournalGroupHarness(dir.Path, branches: 1);
        var hooks = group.Group.ForTestingPurposesOnly();
        using var writeStarted = new ManualResetEventSlim();
        using var releaseWrite = new ManualResetEventSlim();
        using var closeWaiting = new ManualResetEventSlim();
        int closeWaits = 0;
        hooks.WriteStarting = _ =>
        {
            writeStarted.Set();
            releaseWrite.Wait();
        };
        hooks.CloseWaiting = () =>
        {
            Interlocked.Increment(ref closeWaits);
            closeWaiting.Set();
        };
        var branch = group.Branch(0);

        var commit = Task.Run(() => JournalGroupHarness.Commit(branch, 7));
        Assert.True(writeStarted.Wait(s_hangGuard));
        var close = Task.Run(group.Group.Close);
        Assert.True(closeWaiting.Wait(s_hangGuard));
        Assert.False(close.IsCompleted); // the write is held in its hook: nothing can have let Close go
        releaseWrite.Set();
        await close.WaitAsync(s_hangGuard);

        // Close returned after the branch's entry was written and recorded: the root's file is linked into its folder.
        Assert.True(PalFileSystem.SameFile(group.Root.Journal.JournalPath(1), branch.Journal.JournalPath(1)));
        Assert.Equal(new JournalPosition(1, JournalEntryFactory.EmptyEntrySize), await commit.WaitAsync(s_hangGuard));
        Assert.Equal(1, Volatile.Read(ref closeWaits)); // one wait on the signal, no polling
    }

    [Fact]
    public void Close_with_nothing_in_flight_returns_without_waiting_and_later_entries_go_to_their_own_journals()
    {
        using var dir = new TestDirectory("group-close-idle");
        using var group = new JournalGroupHarness(dir.Path, branches: 1);
        int closeWaits = 0;
        group.Group.ForTestingPurposesOnly().CloseWaiting = () => Interlocked.Increment(ref closeWaits);
        var branch = group.Branch(0);

        group.Group.Close();
        group.Group.Close(); // again: still nothing to wait for

        Assert.Equal(0, closeWaits);
        // The group takes no entry any more: the branch wrote this one itself, and stopped sharing.
        Assert.Equal(new JournalPosition(1, JournalEntryFactory.EmptyEntrySize), JournalGroupHarness.Commit(branch, 7));
        Assert.False(branch.Member.Sharing);
        Assert.Equal(0, group.Group.PendingCount);
    }
}
