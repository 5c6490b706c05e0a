namespace Cairn.Journal.Sharing;

/// <summary>
/// Test hooks of a <see cref="JournalGroup"/>, each run on the group's writer at a point where a test holds it
/// to make an interleaving of commits deterministic. The group creates them only when a test asks
/// (<see cref="JournalGroup.ForTestingPurposesOnly"/>): in production there are none.
/// </summary>
internal sealed class JournalGroupTestHooks
{
    /// <summary>Before each write, with the number of entries it carries.</summary>
    public Action<int>? WriteStarting { get; set; }

    /// <summary>
    /// After each write is settled and the entries it completed at once (the root's, the failed ones) were handed
    /// back to their submitters, before the writer hands its turn on and records the branches' entries.
    /// </summary>
    public Action? WriteSettled { get; set; }

    /// <summary>Before a branch's written entry is recorded (its file linked, the entry noted).</summary>
    public Action<SharedWriteRequest>? BranchEntryRecording { get; set; }

    /// <summary>Writes never wait for released members (the cohort counters still count): the bench's "before" of the gather.</summary>
    public bool GatherOff { get; set; }

    /// <summary>On the closing thread, when <see cref="JournalGroup.Close"/> found work in flight and is about to wait for it.</summary>
    public Action? CloseWaiting { get; set; }
}
