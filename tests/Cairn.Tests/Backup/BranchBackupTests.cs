using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>A branch, whose journals are its root's files linked into its folder, backs up like any environment.</summary>
public class BranchBackupTests
{
    [Fact]
    public void A_branch_backup_holds_the_branch_and_steps_over_its_roots_entries()
    {
        using var dir = new TestDirectory("backup-branch");
        using var root = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "root")));
        using var branch = root.OpenBranch(new StorageOptions(Path.Combine(dir.Path, "branch")));
        for (int i = 0; i < 20; i++)
        {
            BackupContent.Fill(root, "r", i * 100, 100, 50);
            BackupContent.Fill(branch, "b", i * 100, 100, 60);
        }
        string copy = Path.Combine(dir.Path, "copy");
        Assert.Contains(Directory.GetFiles(Path.Combine(dir.Path, "branch", "Journals"), "*.journal"), f => Cairn.Pal.PalFileSystem.LinkCount(f) > 1);

        var result = branch.Backup(copy);

        Assert.Equal(branch.LastCommittedTransactionId, result.TransactionId);
        using var restored = StorageEnvironment.Open(new StorageOptions(copy));
        Assert.Equal(result.TransactionId, restored.LastCommittedTransactionId);
        restored.Verify();
        BackupContent.AssertEqual(BackupContent.ReadAll(branch), BackupContent.ReadAll(restored));
    }
}
