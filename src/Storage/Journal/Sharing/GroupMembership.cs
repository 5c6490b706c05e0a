namespace Cairn.Journal.Sharing;

/// <summary>
/// A branch's place in its journal group, from <c>OpenBranch</c> until the branch closes (or its open fails): counted
/// from the start, and holding the branch's environment id from the moment its data file's header is read
/// (<see cref="Claim"/>), so no second member with that id joins while this one is in the group.
/// </summary>
internal sealed class GroupMembership(JournalGroup group, string directory)
{
    // Set by Claim on the opening thread; read by Leave after that open returned or failed (the environment, or the
    // failure, was handed over since: that orders the write before the read).
    private Guid? _environmentId;
    private int _left;

    public JournalGroup Group => group;

    /// <summary>The branch's id, as its header says: refused with <see cref="DuplicateEnvironmentIdException"/> if a member has it.</summary>
    public void Claim(Guid environmentId)
    {
        group.ClaimIdentity(environmentId, directory);
        _environmentId = environmentId;
    }

    /// <summary>The branch leaves (once): it is no longer counted, and its id is free again (a branch closed and reopened is no duplicate).</summary>
    public void Leave()
    {
        if (Interlocked.Exchange(ref _left, 1) == 0)
            group.Leave(_environmentId);
    }
}
