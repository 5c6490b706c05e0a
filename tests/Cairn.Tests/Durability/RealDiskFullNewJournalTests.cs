using Cairn.Pal;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Durability;

/// <summary>
/// A commit whose entry needs a new journal file on a disk with no room for one (found by the cluster's disk-full
/// nemesis): the commit fails with a <see cref="DiskFullException"/> naming the new file, nothing of it is visible,
/// the environment goes on, and once space is back the same write succeeds; after a crash and a reopen every
/// acknowledged write is there. For <c>Commit</c> and for the merger's <c>WriteAsync</c>.
/// </summary>
public class RealDiskFullNewJournalTests(ITestOutputHelper output)
{
    // Larger than the journal in service (and any spare): its entry can only go to a new journal file.
    private const int BigValueLength = 768 << 10;

    private static StorageOptions Options(string path) => new(path)
    {
        InitialJournalFileBytes = 256 << 10,
        MaxJournalFileBytes = 512 << 10,
    };

    [Fact]
    public void A_commit_that_needs_a_new_journal_on_a_full_disk_fails_alone_and_succeeds_once_space_is_back()
        => Run("disk-full-new-journal-commit", static (env, value) =>
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put("big"u8, value);
            tx.Commit();
            return Task.CompletedTask;
        });

    [Fact]
    public void A_merged_write_that_needs_a_new_journal_on_a_full_disk_fails_alone_and_succeeds_once_space_is_back()
        => Run("disk-full-new-journal-merged", static (env, value) =>
            env.WriteAsync(value, static (tx, v) => tx.CreateTree("t").Put("big"u8, v)).AsTask());

    private void Run(string name, Func<StorageEnvironment, byte[], Task> write)
    {
        using var dir = new TestDirectory(name);
        using var disk = SmallFullDisk.TryCreate(dir.Path, megabytes: 32, blockSize: 4096, fillerMegabytes: 4, out string? reason);
        if (disk is null)
        {
            output.WriteLine($"NOT RUN: a real full disk needs a loop mount, which failed here ({reason}); IoFaultTests inject ENOSPC on the same paths.");
            return;
        }
        var options = Options(disk.EnvironmentPath);
        var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("small"u8, "before"u8);
            tx.Commit();
        }
        // Room in the data file for the big value, so the only thing the full disk refuses is the new journal.
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("room"u8, new byte[4 * BigValueLength]);
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Delete("room"u8);
            tx.Commit();
        }
        env.Checkpoint();
        var big = new byte[BigValueLength];
        new Random(7).NextBytes(big); // incompressible: the entry stays bigger than the journal in service

        string rest = FillTheRest(disk);
        var full = Assert.ThrowsAny<DiskFullException>(() => write(env, big).GetAwaiter().GetResult());
        output.WriteLine(full.Message);
        Assert.Contains(".journal", full.FilePath);
        Assert.False(env.HasFailed);
        using (var read = env.BeginRead())
        {
            var tree = read.OpenTree("t");
            Assert.Null(tree.Get("big"u8));
            Assert.Equal("before"u8.ToArray(), tree.Get("small"u8));
        }
        Assert.False(File.Exists(full.FilePath), "the journal file that found the disk full is left behind");

        File.Delete(rest);
        disk.FreeFiller();
        write(env, big).GetAwaiter().GetResult();
        Assert.False(env.HasFailed);
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(options);
        using (var read = reopened.BeginRead())
        {
            var tree = read.OpenTree("t");
            Assert.Equal(big, tree.Get("big"u8));
            Assert.Equal("before"u8.ToArray(), tree.Get("small"u8));
        }
        reopened.Verify();
    }

    /// <summary>Writes a file until the disk refuses more (synced, so nothing is left in delayed allocation); returns its path.</summary>
    private static string FillTheRest(SmallFullDisk disk)
    {
        string path = Path.Combine(Path.GetDirectoryName(disk.EnvironmentPath)!, "rest");
        var chunk = new byte[64 << 10];
        using var file = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.None, bufferSize: 0);
        for (int length = chunk.Length; length >= 512; length /= 2)
        {
            try
            {
                while (true)
                    file.Write(chunk, 0, length);
            }
            catch (IOException)
            {
                // ENOSPC at this length: go on with smaller writes until even 512 bytes find no room.
            }
        }
        try
        {
            file.Flush(flushToDisk: true);
        }
        catch (IOException)
        {
            // The sync itself may find nothing left for metadata: the disk is as full as it gets.
        }
        return path;
    }
}
