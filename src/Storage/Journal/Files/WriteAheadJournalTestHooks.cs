namespace Cairn.Journal.Files;

/// <summary>
/// Test hooks of a <see cref="WriteAheadJournal"/>: points where a test holds a writer to make an interleaving
/// deterministic or to fail a write. The journal creates them only when a test asks
/// (<see cref="WriteAheadJournal.ForTestingPurposesOnly"/>): in production there are none.
/// </summary>
internal sealed class WriteAheadJournalTestHooks
{
    /// <summary>On a group writer after its write claimed its span, before the write goes to the device.</summary>
    public Action<GroupWrite>? GroupWritePerforming { get; set; }
}
