namespace Cairn;

/// <summary>
/// <see cref="StorageEnvironment.OpenBranch"/> was asked to add an environment whose id is already the id of a member
/// of the journal group (its root or an open branch): a plain copy or a backup of that member, which keeps its id.
/// Two members with one id would take each other's entries in the shared journal files for their own, so the branch
/// is refused before anything of it is read or changed. Open it alone, or make a compacting copy
/// (<see cref="BackupOptions.Compact"/>, <see cref="EnvironmentBackup.Compact"/>): a new environment with an id of its own.
/// </summary>
public sealed class DuplicateEnvironmentIdException(string directory, string memberDirectory, Guid environmentId, string rootDirectory)
    : IOException($"'{directory}' cannot join the journal group of '{rootDirectory}': its environment id {environmentId} is already the id of " +
        $"'{memberDirectory}' in this group (is it a copy or a backup of it?). Two members with one id would take each other's entries in the " +
        "shared journal files for their own. Open it alone, or make a compacting copy (BackupOptions.Compact), which has an id of its own.")
{
    /// <summary>The refused environment's directory.</summary>
    public string Directory { get; } = directory;

    /// <summary>The directory of the group's member that already has <see cref="EnvironmentId"/>.</summary>
    public string MemberDirectory { get; } = memberDirectory;

    /// <summary>The id both environments have.</summary>
    public Guid EnvironmentId { get; } = environmentId;

    /// <summary>The group's root.</summary>
    public string RootDirectory { get; } = rootDirectory;
}
