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

    /// <summary>
    /// Many merger callers at once on the full disk: the batch whose write found no room fails, and so may later
    /// ones (each with <see cref="DiskFullException"/>), while a batch already running on top of a failed one runs
    /// again on the published state. Whatever succeeded is there after a crash, nothing that failed is, and every
    /// failed write succeeds once space is back.
    /// </summary>
    [Fact]
    public async Task Merged_writers_on_a_full_disk_fail_alone_and_lose_nothing_acknowledged()
    {
        using var dir = new TestDirectory("disk-full-new-journal-callers");
        using var disk = TryCreateDisk(dir);
        if (disk is null)
            return;
        var options = Options(disk.EnvironmentPath);
        var env = StorageEnvironment.Open(options);
        MakeRoom(env);
        string rest = disk.FillTheRest();

        var writes = Enumerable.Range(0, 64).Select(i => (Key: i, Task: WriteKey(env, i))).ToList();
        var failed = new List<int>();
        foreach (var (key, task) in writes)
        {
            try
            {
                await task;
            }
            catch (DiskFullException)
            {
                failed.Add(key);
            }
        }
        output.WriteLine($"{failed.Count} of {writes.Count} merged writes failed on the full disk");
        Assert.NotEmpty(failed); // the big values cannot all fit in the journal in service
        Assert.False(env.HasFailed);
        using (var read = env.BeginRead())
        {
            var tree = read.OpenTree("t");
            foreach (var (key, _) in writes)
                Assert.Equal(failed.Contains(key) ? null : Value(key), tree.Get(Bytes.Key(key)));
        }

        File.Delete(rest);
        disk.FreeFiller();
        foreach (int key in failed)
            await WriteKey(env, key);
        Assert.False(env.HasFailed);
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(options);
        using (var read = reopened.BeginRead())
        {
            var tree = read.OpenTree("t");
            foreach (var (key, _) in writes)
                Assert.Equal(Value(key), tree.Get(Bytes.Key(key)));
        }
        reopened.Verify();
    }

    // Every eighth value is too big for the journal in service; the others are small.
    private static byte[] Value(int key) => key % 8 == 0 ? RandomValue(key, BigValueLength) : Bytes.Value(key, 500);

    private static byte[] RandomValue(int seed, int length)
    {
        var value = new byte[length];
        new Random(seed).NextBytes(value);
        return value;
    }

    private static Task WriteKey(StorageEnvironment env, int key)
        => env.WriteAsync(key, static (tx, k) => tx.CreateTree("t").Put(Bytes.Key(k), Value(k))).AsTask();

    private SmallFullDisk? TryCreateDisk(TestDirectory dir)
    {
        var disk = SmallFullDisk.TryCreate(dir.Path, megabytes: 32, blockSize: 4096, fillerMegabytes: 4, out string? reason);
        if (disk is null)
            output.WriteLine($"NOT RUN: a real full disk needs a loop mount, which failed here ({reason}); IoFaultTests inject ENOSPC on the same paths.");
        return disk;
    }

    /// <summary>Free pages in the data file for several big values, so the only thing the full disk refuses is a new journal.</summary>
    private static void MakeRoom(StorageEnvironment env)
    {
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("room"u8, new byte[12 * BigValueLength]);
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Delete("room"u8);
            tx.Commit();
        }
        env.Checkpoint();
    }

    private void Run(string name, Func<StorageEnvironment, byte[], Task> write)
    {
        using var dir = new TestDirectory(name);
        using var disk = TryCreateDisk(dir);
        if (disk is null)
            return;
        var options = Options(disk.EnvironmentPath);
        var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("small"u8, "before"u8);
            tx.Commit();
        }
        MakeRoom(env);
        var big = RandomValue(7, BigValueLength); // incompressible: the entry stays bigger than the journal in service

        string rest = disk.FillTheRest();
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
        // The journal in service stayed in service: a small write still fits there on the full disk.
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("small"u8, "while full"u8);
            tx.Commit();
        }

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
            Assert.Equal("while full"u8.ToArray(), tree.Get("small"u8));
        }
        reopened.Verify();
    }
}
