using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Durability;

/// <summary>
/// <see cref="RealDiskFullNewJournalTests"/> for a journal group: a root and two branches on one real, full disk, where
/// an entry too big for the shared journal in service needs a new journal file (created by the root, linked into
/// every member's <c>Journals/</c> folder). The write that finds no room fails with a <see cref="DiskFullException"/>
/// naming a journal file; nothing of it shows in any member; no member is left failed (no entry was half written);
/// small writes of every member still fit in the journal in service; once space is back the same writes succeed,
/// and after a crash every member reopens with every acknowledged write and verifies clean.
/// </summary>
public class RealDiskFullGroupJournalTests(ITestOutputHelper output)
{
    private const int BigValueLength = 768 << 10; // larger than the journal in service: only a new journal file holds it

    private static StorageOptions Options(string path) => new(path)
    {
        InitialJournalFileBytes = 256 << 10,
        MaxJournalFileBytes = 512 << 10,
    };

    [Fact]
    public void A_branch_commit_that_needs_a_new_shared_journal_on_a_full_disk_fails_alone()
        => Run("disk-full-group-commit", member: 1, static (env, value) =>
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put("big"u8, value);
            tx.Commit();
            return Task.CompletedTask;
        });

    [Fact]
    public void A_branch_merged_write_that_needs_a_new_shared_journal_on_a_full_disk_fails_alone()
        => Run("disk-full-group-merged", member: 2, static (env, value) =>
            env.WriteAsync(value, static (tx, v) => tx.CreateTree("t").Put("big"u8, v)).AsTask());

    [Fact]
    public void A_root_commit_that_needs_a_new_shared_journal_on_a_full_disk_fails_alone()
        => Run("disk-full-group-root", member: 0, static (env, value) =>
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put("big"u8, value);
            tx.Commit();
            return Task.CompletedTask;
        });

    private void Run(string name, int member, Func<StorageEnvironment, byte[], Task> write)
    {
        using var dir = new TestDirectory(name);
        var disk = SmallFullDisk.TryCreate(dir.Path, megabytes: 48, blockSize: 4096, fillerMegabytes: 6, out string? reason);
        if (disk is null)
        {
            output.WriteLine($"NOT RUN: a real full disk needs a loop mount, which failed here ({reason}); IoFaultTests inject ENOSPC on the same paths.");
            return;
        }
        using var _ = disk;
        string[] paths = [disk.EnvironmentPath, disk.FolderFor("branch-1"), disk.FolderFor("branch-2")];
        var members = OpenGroup(paths);
        foreach (var env in members)
        {
            Put(env, "small"u8, "before"u8);
            MakeRoom(env);
        }
        var big = new byte[BigValueLength];
        new Random(7).NextBytes(big); // incompressible: the entry stays bigger than the journal in service

        string rest = disk.FillTheRest();
        var full = Assert.ThrowsAny<DiskFullException>(() => write(members[member], big).GetAwaiter().GetResult());
        output.WriteLine(full.Message);
        Assert.Contains(".journal", full.FilePath);
        foreach (var env in members)
        {
            Assert.False(env.HasFailed, $"{env.DirectoryPath} was left failed by a write that wrote no part of an entry");
            using var read = env.BeginRead();
            var tree = read.OpenTree("t");
            Assert.Null(tree.Get("big"u8));
            Assert.Equal("before"u8.ToArray(), tree.Get("small"u8));
        }
        // The shared journal in service stayed in service: every member's small write still fits there.
        foreach (var env in members)
            Put(env, "small"u8, "while full"u8);

        File.Delete(rest);
        disk.FreeFiller();
        write(members[member], big).GetAwaiter().GetResult();
        Put(members[(member + 1) % members.Length], "big"u8, big);
        foreach (var env in members)
            Assert.False(env.HasFailed);
        for (int k = members.Length - 1; k >= 0; k--)
            members[k].ForTestingPurposesOnly().SimulateProcessCrash();

        var reopened = OpenGroup(paths);
        for (int k = 0; k < reopened.Length; k++)
        {
            using (var read = reopened[k].BeginRead())
            {
                var tree = read.OpenTree("t");
                bool wroteBig = k == member || k == (member + 1) % members.Length;
                Assert.Equal(wroteBig ? big : null, tree.Get("big"u8));
                Assert.Equal("while full"u8.ToArray(), tree.Get("small"u8));
            }
            reopened[k].Verify();
        }
        for (int k = reopened.Length - 1; k >= 0; k--)
            reopened[k].Dispose();
    }

    private static StorageEnvironment[] OpenGroup(string[] paths)
    {
        var root = StorageEnvironment.Open(Options(paths[0]));
        return [root, .. paths[1..].Select(p => root.OpenBranch(Options(p)))];
    }

    private static void Put(StorageEnvironment env, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(key, value);
        tx.Commit();
    }

    /// <summary>Free pages in the data file for big values, so the only thing the full disk refuses is a new journal.</summary>
    private static void MakeRoom(StorageEnvironment env)
    {
        Put(env, "room"u8, new byte[4 * BigValueLength]);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Delete("room"u8);
            tx.Commit();
        }
        env.Checkpoint();
    }
}
