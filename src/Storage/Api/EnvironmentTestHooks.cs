using Cairn.Journal.Files;
using Cairn.Journal.Sharing;
using Cairn.Paging;
using Cairn.Transactions;

namespace Cairn;

/// <summary>
/// The points where a test reaches into an environment: its parts to hold or fail, and the crash and states no
/// API call makes. Nothing in production creates one (it holds no state, so the environment keeps no field for it).
/// </summary>
internal sealed class EnvironmentTestHooks(StorageEnvironment environment)
{
    /// <summary>The group this root's branches write through (null before its first branch), to hold its writes.</summary>
    public JournalGroup? Group => environment.Parts.GroupSeat.Group;

    /// <summary>Where the commit's write stage appends (this environment's own journal while it stands alone, a group member in a group).</summary>
    public IJournalAppender CommitJournal => environment.Parts.Committer.Journal;

    /// <summary>This environment's own journal (a root's group writes go through it), to inject failures.</summary>
    public WriteAheadJournal Journal => environment.Parts.Journal;

    /// <summary>A flush and a sync as the background cycle does them (the older header copy is not caught up).</summary>
    public void FlushAndSyncAsTheFlusherDoes() => environment.Parts.Flusher.ForTestingPurposesOnly().FlushAndSyncAsTheFlusherDoes();

    /// <summary>A flush without the sync that would normally follow it, leaving flushed pages unsynced.</summary>
    public void FlushWithoutSync() => environment.Parts.Flusher.ForTestingPurposesOnly().FlushWithoutSync();

    /// <summary>
    /// Stops the background thread and closes every file as a killed process would leave them, without
    /// flushing, syncing or writing the header (the page cache keeps what was written, as it does when a
    /// process dies).
    /// </summary>
    public void SimulateProcessCrash() => environment.CloseAsIfKilled();

    /// <summary>
    /// Publishes the current state with its page table edited, to show <see cref="StorageEnvironment.Verify"/>
    /// states no commit makes. The test must edit it back before closing: every version in the table is freed then.
    /// </summary>
    public void EditPageTable(Func<PageTable, PageTable> edit) => environment.Parts.States.ForTestingPurposesOnly().PublishEditedPages(edit);

    /// <summary>Where a test holds the thread that counts open read transactions (the close's count included).</summary>
    public ReaderTableTestHooks ReaderCount => environment.Parts.States.Readers.ForTestingPurposesOnly();

    /// <summary>The flusher's reader slot pinned to the current state, as a flush holds it while it writes pages.</summary>
    public void PinFlusherSlot() => environment.Parts.States.Pin(environment.Parts.Flusher.ReaderSlot);

    /// <summary>The flusher's reader slot let go, as the end of a flush does.</summary>
    public void UnpinFlusherSlot() => environment.Parts.States.Readers.MarkIdle(environment.Parts.Flusher.ReaderSlot);
}
