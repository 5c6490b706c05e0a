namespace Cairn.Journal.Sharing;

/// <summary>The group's members: branches joining and leaving, and the ids they claim.</summary>
internal sealed partial class JournalGroup
{
    /// <summary>A branch in <paramref name="directory"/> joins (its id is claimed once its header is read); null if the group is closed (its root is closing).</summary>
    public GroupMembership? TryJoin(string directory)
    {
        lock (_gate)
        {
            if (_closed)
                return null;
            _members++;
            return new GroupMembership(this, directory);
        }
    }

    /// <summary>A joining branch's id: refused if a member of the group (the root, or another branch) has it.</summary>
    public void ClaimIdentity(Guid environmentId, string directory)
    {
        lock (_gate)
        {
            if (_identities.TryGetValue(environmentId, out var member))
                throw new DuplicateEnvironmentIdException(directory, member, environmentId, _rootEnvironmentDirectory);
            _identities.Add(environmentId, directory);
        }
    }

    /// <summary>Through <see cref="GroupMembership.Leave"/>: the branch is gone, and so is its claim on its id.</summary>
    public void Leave(Guid? environmentId)
    {
        lock (_gate)
        {
            _members--;
            if (environmentId is { } id)
                _identities.Remove(id);
        }
    }
}
