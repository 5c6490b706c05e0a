using System.Security.Cryptography;
using Cairn.Stress.Protocol;

namespace Cairn.Stress.Campaigns;

/// <summary>
/// Environments that carry the id of a journal group's member and try to join that group while it commits: a plain
/// copy of the root's folder (taken while the group is closed) and a backup of a branch (taken while it commits).
/// Each must be refused at <see cref="StorageEnvironment.OpenBranch"/> with <see cref="DuplicateEnvironmentIdException"/>
/// naming the member it copies, before any of its files is read for writing: a member with another's id would take
/// that member's entries in the shared journal for its own and damage both (issue 30, item 2). Anything else, an
/// accepted impostor, another error, or a changed byte in the impostor's folder, is a <see cref="CampaignFailure"/>.
/// </summary>
internal sealed class ImpostorMembers(string directory, int branches, CampaignTally tally, Random random)
{
    private string Folder => Path.Combine(directory, "impostors");

    private string RootCopy => Path.Combine(Folder, "root-copy");

    private string BranchBackup => Path.Combine(Folder, "branch-backup");

    /// <summary>
    /// Copies the root's folder as it lies on disk; call it while no process has the group open. Waits up to
    /// <paramref name="lockWait"/> for the lock of the process last killed (<see cref="KilledOwnerLock"/>).
    /// </summary>
    public void CopyRootWhileClosed(TimeSpan lockWait)
    {
        if (Directory.Exists(Folder))
            Directory.Delete(Folder, recursive: true);
        string root = EnvironmentLayout.Directory(directory, 0, branches);
        using (KilledOwnerLock.Acquire(Path.Combine(root, StorageEnvironment.DataFileName), lockWait))
            CopyFolder(root, RootCopy);
    }

    /// <summary>
    /// With the group open (<paramref name="members"/>[0] its root), backs up a random branch and tries to add it and
    /// the root's copy as branches; both attempts run while the members commit.
    /// </summary>
    public void TryToJoin(StorageEnvironment[] members, Func<string, StorageOptions> options)
    {
        int copied = random.Next(1, branches + 1);
        members[copied].Backup(BranchBackup);
        TryToJoin(members[0], RootCopy, EnvironmentLayout.Directory(directory, 0, branches), options);
        TryToJoin(members[0], BranchBackup, EnvironmentLayout.Directory(directory, copied, branches), options);
    }

    private void TryToJoin(StorageEnvironment root, string impostor, string copiedMember, Func<string, StorageOptions> options)
    {
        var before = FolderDigest(impostor);
        StorageEnvironment? joined = null;
        try
        {
            joined = root.OpenBranch(options(impostor));
        }
        catch (DuplicateEnvironmentIdException e) when (SamePath(e.Directory, impostor) && SamePath(e.MemberDirectory, copiedMember))
        {
            var after = FolderDigest(impostor);
            if (!before.SequenceEqual(after))
                throw Fail($"'{impostor}' was refused as a duplicate of '{copiedMember}', but its files changed: " +
                    $"before [{string.Join(", ", before)}], after [{string.Join(", ", after)}]");
            tally.RecordImpostorRefused();
            return;
        }
        catch (Exception e)
        {
            throw Fail($"'{impostor}', a copy of '{copiedMember}', was not refused as a duplicate id: {e}");
        }
        joined.Dispose();
        throw Fail($"'{impostor}', a copy of '{copiedMember}' with its environment id, joined the journal group");
    }

    private CampaignFailure Fail(string message)
    {
        tally.RecordRecoveryFailure();
        return new CampaignFailure(message);
    }

    private static bool SamePath(string a, string b)
        => string.Equals(Path.TrimEndingDirectorySeparator(Path.GetFullPath(a)), Path.TrimEndingDirectorySeparator(Path.GetFullPath(b)), StringComparison.Ordinal);

    private static void CopyFolder(string source, string destination)
    {
        Directory.CreateDirectory(destination);
        foreach (var file in Directory.GetFiles(source))
            File.Copy(file, Path.Combine(destination, Path.GetFileName(file)));
        foreach (var folder in Directory.GetDirectories(source))
            CopyFolder(folder, Path.Combine(destination, Path.GetFileName(folder)));
    }

    /// <summary>Every file under the folder by relative path, with its length and SHA-256: what a refusal may not change.</summary>
    private static List<string> FolderDigest(string folder)
        => [.. Directory.GetFiles(folder, "*", SearchOption.AllDirectories)
            .Order(StringComparer.Ordinal)
            .Select(file => $"{Path.GetRelativePath(folder, file)} {new FileInfo(file).Length} {Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(file)))[..16]}")];
}
