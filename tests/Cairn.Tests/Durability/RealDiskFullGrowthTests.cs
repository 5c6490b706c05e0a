using Cairn.Pal;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Durability;

/// <summary>
/// A full disk while the data file grows (issue 11, item 1): a 64 MiB ext4 (4 KiB and 1 KiB blocks, none
/// reserved), a 20 MiB filler, and commits until the disk is full. Whether the writer then goes on once
/// space is back and closes, or dies at the first failure and is reopened and closed on the still-full
/// disk, every acknowledged transaction must be there once space is back, and the data file must stay
/// openable throughout: a growth that fails part way is taken back, never left at a size that is not a
/// whole number of pages.
/// </summary>
public class RealDiskFullGrowthTests(ITestOutputHelper output)
{
    private const int ValueLength = 20_000;
    private const int FillerMegabytes = 20;
    // The commit that met the full disk, or one per merger caller.
    private const int FailedCommitsAtMost = 4;

    private static StorageOptions Options(string path) => new(path)
    {
        InitialJournalFileBytes = 1 << 20,
        MaxJournalFileBytes = 4 << 20,
        MaxFlushDelay = TimeSpan.FromMilliseconds(5),
        SyncInterval = TimeSpan.FromMilliseconds(20),
    };

    [Theory]
    [InlineData(4096)]
    [InlineData(1024)]
    public void A_writer_that_filled_the_disk_goes_on_once_space_is_back_and_closes_cleanly(int blockSize)
    {
        using var dir = new TestDirectory($"disk-full-growth-{blockSize}");
        using var disk = PrepareSmallDisk(dir, blockSize);
        if (disk is null)
            return;
        string envPath = disk.EnvironmentPath;
        var acknowledged = new List<int>();

        var env = StorageEnvironment.Open(Options(envPath));
        var full = CommitUntilFull(env, acknowledged);
        output.WriteLine($"{blockSize}-byte blocks: {acknowledged.Count} commits, then {full.Message}");
        Assert.False(env.HasFailed);

        disk.FreeFiller();
        CommitOnceSpaceIsBack(env, acknowledged, first: 1_000_000, count: 50);
        // The close flushes everything, growing the data file to what it needs although doubling would not fit.
        env.Dispose();
        AssertDataFileSizeIsWholePages(envPath);

        using var reopened = StorageEnvironment.Open(Options(envPath));
        AssertHolds(reopened, acknowledged);
        reopened.Verify();
    }

    [Theory]
    [InlineData(4096)]
    [InlineData(1024)]
    public void A_writer_killed_at_the_first_failure_recovers_on_the_full_disk_and_after_it(int blockSize)
    {
        using var dir = new TestDirectory($"disk-full-killed-{blockSize}");
        using var disk = PrepareSmallDisk(dir, blockSize);
        if (disk is null)
            return;
        string envPath = disk.EnvironmentPath;
        var acknowledged = new List<int>();

        var env = StorageEnvironment.Open(Options(envPath));
        CommitUntilFull(env, acknowledged);
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        // On the still-full disk: opening may itself find no space (a typed error, nothing changed); if it
        // opens, everything is there, and closing either flushes or reports the full disk and keeps the journals.
        string stillFull;
        try
        {
            using var crowded = StorageEnvironment.Open(Options(envPath));
            AssertHolds(crowded, acknowledged);
            stillFull = "opened";
            try
            {
                crowded.Dispose();
                stillFull += ", closed cleanly";
            }
            catch (DiskFullException e)
            {
                stillFull += $", close reported: {e.Message}";
            }
        }
        catch (DiskFullException e)
        {
            stillFull = $"open reported: {e.Message}";
        }
        output.WriteLine($"{blockSize}-byte blocks: {acknowledged.Count} commits; on the full disk {stillFull}");
        AssertDataFileSizeIsWholePages(envPath);

        disk.FreeFiller();
        using (var reopened = OpenOnceSpaceIsBack(envPath))
        {
            AssertHolds(reopened, acknowledged);
            reopened.Verify();
            CommitOnceSpaceIsBack(reopened, acknowledged, first: 1_000_000, count: 20);
        }
        using var again = StorageEnvironment.Open(Options(envPath));
        AssertHolds(again, acknowledged);
        again.Verify();
    }

    [Fact]
    public async Task Merger_callers_that_filled_the_disk_lose_nothing_acknowledged()
    {
        using var dir = new TestDirectory("disk-full-merger");
        using var disk = PrepareSmallDisk(dir, 4096);
        if (disk is null)
            return;
        string envPath = disk.EnvironmentPath;
        var acknowledged = new List<int>();

        var env = StorageEnvironment.Open(Options(envPath));
        Exception? first = null;
        int next = 0;
        async Task Caller()
        {
            while (Volatile.Read(ref first) is null)
            {
                int key = Interlocked.Increment(ref next);
                try
                {
                    await env.WriteAsync(key, static (tx, k) => tx.CreateTree("t").Put(Bytes.Key(k), Bytes.Value(k, ValueLength)));
                    lock (acknowledged)
                        acknowledged.Add(key);
                }
                catch (Exception e) when (e is DiskFullException or EnvironmentFailedException)
                {
                    Interlocked.CompareExchange(ref first, e, null);
                }
            }
        }
        await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(Caller)));
        output.WriteLine($"{acknowledged.Count} merged commits, then {first!.GetType().Name}: {first.Message}");

        disk.FreeFiller();
        try
        {
            env.Dispose();
        }
        catch (Exception e) when (e is PalIOException or EnvironmentFailedException)
        {
            output.WriteLine($"close reported {e.GetType().Name}: {e.Message}");
        }
        AssertDataFileSizeIsWholePages(envPath);
        using var reopened = OpenOnceSpaceIsBack(envPath);
        AssertHolds(reopened, acknowledged);
        reopened.Verify();
    }

    /// <summary>A 64 MiB ext4 with a 20 MiB filler on it, and where the environment goes; null (reported) where this machine cannot mount one.</summary>
    private SmallFullDisk? PrepareSmallDisk(TestDirectory dir, int blockSize)
    {
        var disk = SmallFullDisk.TryCreate(dir.Path, megabytes: 64, blockSize, FillerMegabytes, out string? reason);
        if (disk is null)
            output.WriteLine($"NOT RUN: a real full disk needs a loop mount, which failed here ({reason}); DataFileStepFaultTests and DataFileGrowthTests inject the same failures.");
        return disk;
    }

    private static DiskFullException CommitUntilFull(StorageEnvironment env, List<int> acknowledged)
    {
        for (int i = 1; i < 100_000; i++)
        {
            try
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(Bytes.Key(i), Bytes.Value(i, ValueLength));
                tx.Commit();
                acknowledged.Add(i);
            }
            catch (DiskFullException e)
            {
                return e;
            }
        }
        throw new Xunit.Sdk.XunitException("100,000 commits of 20 KB fitted on a 64 MiB file system");
    }

    /// <summary>Space comes back once ext4 has committed the filler's deletion; until then a commit may still fail cleanly.</summary>
    private static void CommitOnceSpaceIsBack(StorageEnvironment env, List<int> acknowledged, int first, int count)
    {
        var waited = System.Diagnostics.Stopwatch.StartNew();
        for (int i = first; i < first + count; i++)
        {
            while (true)
            {
                try
                {
                    using var tx = env.BeginWrite();
                    tx.CreateTree("t").Put(Bytes.Key(i), Bytes.Value(i, ValueLength));
                    tx.Commit();
                    acknowledged.Add(i);
                    break;
                }
                catch (DiskFullException) when (waited.Elapsed < TimeSpan.FromSeconds(30))
                {
                    Thread.Sleep(50);
                }
            }
        }
        Assert.False(env.HasFailed);
    }

    private static StorageEnvironment OpenOnceSpaceIsBack(string envPath)
    {
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (true)
        {
            try
            {
                return StorageEnvironment.Open(Options(envPath));
            }
            catch (DiskFullException) when (waited.Elapsed < TimeSpan.FromSeconds(30))
            {
                Thread.Sleep(50);
            }
        }
    }

    private static void AssertDataFileSizeIsWholePages(string envPath)
    {
        long size = new FileInfo(Path.Combine(envPath, StorageEnvironment.DataFileName)).Length;
        Assert.True(size % Cairn.Paging.StorageConstants.PageSize == 0, $"the data file is {size} bytes, not a whole number of pages");
    }

    /// <summary>
    /// Every acknowledged key with its value, and besides them only keys whose commit failed (a failed commit's
    /// entry may have reached its journal whole before the error: it was never acknowledged, nor half applied).
    /// </summary>
    private static void AssertHolds(StorageEnvironment env, List<int> acknowledged)
    {
        using var tx = env.BeginRead();
        var tree = tx.OpenTree("t");
        foreach (int i in acknowledged)
            Assert.True(tree.TryGet(Bytes.Key(i), out var value) && value.SequenceEqual(Bytes.Value(i, ValueLength)), $"acknowledged key {i} is missing or wrong");
        var known = acknowledged.ToHashSet();
        using var cursor = tree.CreateCursor();
        int unacknowledged = 0;
        for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext())
        {
            int key = (int)System.Buffers.Binary.BinaryPrimitives.ReadInt64BigEndian(cursor.Key);
            if (known.Contains(key))
                continue;
            Assert.True(cursor.Value.SequenceEqual(Bytes.Value(key, ValueLength)), $"key {key} of a failed commit is there half");
            unacknowledged++;
        }
        Assert.True(unacknowledged <= FailedCommitsAtMost, $"{unacknowledged} keys that were never acknowledged");
    }
}
