using Cairn.Tests.Shipping;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// An environment id is unique in a journal group (issue 30, item 2): a copy or a backup of a member keeps the
/// member's id, and opening it as a branch of the same root used to let two members take each other's entries in
/// the shared files for their own (both refused to open after a crash; a copy of the root's folder failed its
/// innocent siblings). <c>OpenBranch</c> refuses it, naming both folders, before its journals are replayed.
/// </summary>
public sealed class DuplicateEnvironmentIdTests
{
    private static StorageOptions Options(string directory) => JournalKeepingOptions.For(directory);

    private static void Put(StorageEnvironment env, string key)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(System.Text.Encoding.UTF8.GetBytes(key), Bytes.Value(key.Length, 200));
        tx.Commit();
    }

    private static string[] Keys(StorageEnvironment env)
    {
        using var tx = env.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        var keys = new List<string>();
        for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext())
            keys.Add(System.Text.Encoding.UTF8.GetString(cursor.Key));
        return [.. keys];
    }

    /// <summary>Every file under <paramref name="directory"/> with its bytes' hash: what a refused open must not change.</summary>
    private static SortedDictionary<string, string> Snapshot(string directory)
    {
        var files = new SortedDictionary<string, string>(StringComparer.Ordinal);
        foreach (var file in Directory.EnumerateFiles(directory, "*", SearchOption.AllDirectories))
            files[Path.GetRelativePath(directory, file)] = Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(file)));
        return files;
    }

    /// <summary>
    /// Opening <paramref name="copyPath"/> as a branch of <paramref name="root"/> is refused as a duplicate of
    /// <paramref name="member"/>, naming both folders, and leaves the copy's files and the group's members as they were.
    /// </summary>
    private static void AssertRefused(StorageEnvironment root, string copyPath, StorageEnvironment member, string memberPath)
    {
        var before = Snapshot(copyPath);
        int branches = root.BranchCount;
        var refused = Assert.Throws<DuplicateEnvironmentIdException>(() => root.OpenBranch(Options(copyPath)));
        Assert.Equal(member.EnvironmentId, refused.EnvironmentId);
        Assert.Equal(copyPath, refused.Directory);
        Assert.Equal(memberPath, refused.MemberDirectory);
        Assert.Equal(root.DirectoryPath, refused.RootDirectory);
        Assert.Contains(copyPath, refused.Message, StringComparison.Ordinal);
        Assert.Contains(memberPath, refused.Message, StringComparison.Ordinal);
        Assert.Equal(branches, root.BranchCount);
        Assert.Equal(before, Snapshot(copyPath));
    }

    [Fact]
    public void A_backup_of_a_branch_opened_as_a_second_branch_beside_its_original_is_refused()
    {
        using var dir = new TestDirectory("dup-branch-backup");
        string rootPath = dir.File("root"), aPath = dir.File("a"), copyPath = dir.File("a-backup");
        using var root = StorageEnvironment.Open(Options(rootPath));
        using var a = root.OpenBranch(Options(aPath));
        Put(a, "before-backup");
        var backup = a.Backup(copyPath);
        Put(a, "after-backup");

        AssertRefused(root, copyPath, a, aPath);

        // The group goes on, and the copy is an ordinary environment on its own.
        Put(a, "after-refusal");
        Put(root, "root");
        Assert.Equal(["after-backup", "after-refusal", "before-backup"], Keys(a));
        using (var alone = StorageEnvironment.Open(Options(copyPath)))
        {
            Assert.Equal(backup.TransactionId, alone.LastCommittedTransactionId);
            Assert.Equal(["before-backup"], Keys(alone));
        }
    }

    [Fact]
    public void A_plain_copy_of_the_roots_folder_opened_as_its_branch_is_refused()
    {
        using var dir = new TestDirectory("dup-root-copy");
        string rootPath = dir.File("root"), copyPath = dir.File("root-copy"), bPath = dir.File("b");
        using (var first = StorageEnvironment.Open(Options(rootPath)))
            Put(first, "root-1");
        ShippingFixtures.CopyEnvironment(rootPath, copyPath);
        using var root = StorageEnvironment.Open(Options(rootPath));
        using var b = root.OpenBranch(Options(bPath));
        Put(b, "b-1");

        AssertRefused(root, copyPath, root, rootPath);

        Put(root, "root-2");
        Put(b, "b-2");
        Assert.False(root.HasFailed);
        Assert.False(b.HasFailed);
        Assert.Equal(["root-1", "root-2"], Keys(root));
        Assert.Equal(["b-1", "b-2"], Keys(b));
    }

    [Fact]
    public void A_branch_closed_and_reopened_is_not_a_duplicate_and_a_compacting_copy_has_an_id_of_its_own()
    {
        using var dir = new TestDirectory("dup-reopen");
        string rootPath = dir.File("root"), aPath = dir.File("a"), compactPath = dir.File("a-compacted");
        using var root = StorageEnvironment.Open(Options(rootPath));
        Guid id;
        using (var a = root.OpenBranch(Options(aPath)))
        {
            Put(a, "first");
            id = a.EnvironmentId;
        }
        Assert.Equal(0, root.BranchCount);
        using var again = root.OpenBranch(Options(aPath));
        Assert.Equal(id, again.EnvironmentId);
        Put(again, "second");

        // A refused open leaves no claim behind: the original still reopens after the copy was refused.
        string copyPath = dir.File("a-backup");
        again.Backup(copyPath);
        Assert.Throws<DuplicateEnvironmentIdException>(() => root.OpenBranch(Options(copyPath)));
        again.Dispose();
        using (var third = root.OpenBranch(Options(aPath)))
            Assert.Equal(["first", "second"], Keys(third));

        // A compacting backup is a new environment: it joins the group beside its original.
        using var original = root.OpenBranch(Options(aPath));
        original.Backup(compactPath, new BackupOptions { Compact = true }, CancellationToken.None);
        using var compacted = root.OpenBranch(Options(compactPath));
        Assert.NotEqual(original.EnvironmentId, compacted.EnvironmentId);
        Put(compacted, "third");
        Put(original, "fourth");
        Assert.Equal(["first", "second", "third"], Keys(compacted));
        Assert.Equal(["first", "fourth", "second"], Keys(original));
        Assert.Equal(2, root.BranchCount);
    }
}
