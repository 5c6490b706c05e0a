using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.TestChild;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Durability;

/// <summary>
/// A small disk filled by journals (issue 30, item 3): a 64 MiB ext4 with a 20 MiB filler, values of 24 B to 1.3 MiB, and a
/// flusher that never runs on its own, so everything committed waits in the journals (<see cref="LargeValues.Options"/>). Once the disk is full and the filler
/// is deleted, the environment must close cleanly on that same disk: a checkpoint goes journal by journal, so it needs
/// free space for about one journal's pages, not for every journal's at once. Then every acknowledged commit is there.
/// </summary>
public class RealDiskFullCheckpointTests(ITestOutputHelper output)
{
    private const int DiskMegabytes = 64;
    private const int FillerMegabytes = 20;
    // A failed commit's entry may have reached its journal whole before the error: never acknowledged, nor half applied.
    private const int FailedCommitsAtMost = 16;

    // After the filler is gone, up to this many commits (about 9 MB of values) go on while more than KeepFree is free.
    internal const int CommitsAfterFreeing = 20;
    // A commit takes at most a new 4 MiB journal and a 1.3 MiB value, so the close finds at least 6 MiB free: more than
    // one step needs (a 4 MiB journal's pages), far less than a whole flush (every journal's pages, 30-40 MB).
    internal const long KeepFree = 12L << 20;

    [Fact]
    public void A_single_writer_that_filled_a_small_disk_closes_cleanly_on_it_once_20_MiB_are_freed()
        => SingleWriter("disk-full-checkpoint-single", LargeValues.Options, CommitsAfterFreeing, KeepFree);

    /// <summary>
    /// The issue's own configuration: the engine's journal sizes (1, 2, 4, 8, 16 MiB as they fill fast). A step may need
    /// the largest journal's pages (up to 16 MiB), so commits after freeing go on only while 26 MiB are free (a commit
    /// takes at most a new 8 MiB journal and a 1.3 MiB value). Whether a whole flush would still fit depends on where the
    /// fill stopped, so this case does not always fail without journal-by-journal checkpoints; the others do.
    /// </summary>
    [Fact]
    public void A_single_writer_with_the_engines_journal_sizes_closes_cleanly_on_a_small_disk_once_20_MiB_are_freed()
        => SingleWriter("disk-full-checkpoint-engine-sizes", LargeValues.EngineJournalSizes, 10, 26L << 20);

    private void SingleWriter(string name, Func<string, StorageOptions> options, int commitsAfterFreeing, long keepFree)
    {
        using var dir = new TestDirectory(name);
        using var disk = SmallDisk(dir, 4096);
        if (disk is null)
            return;
        var acknowledged = new List<long>();
        var env = StorageEnvironment.Open(options(disk.EnvironmentPath));
        long key = 1;
        var full = CommitUntilFull(env, acknowledged, ref key);
        output.WriteLine($"{acknowledged.Count} commits, then {full.Message}");
        Assert.False(env.HasFailed);

        disk.FreeFiller();
        CommitOnThenCloseAndReopen(env, disk, acknowledged, key, commitsAfterFreeing, keepFree);
    }

    [Fact]
    public async Task Sixteen_merger_callers_that_filled_a_small_disk_of_1_KiB_blocks_close_cleanly_on_it()
    {
        using var dir = new TestDirectory("disk-full-checkpoint-merger");
        using var disk = SmallDisk(dir, 1024);
        if (disk is null)
            return;
        var acknowledged = new List<long>();
        var env = StorageEnvironment.Open(LargeValues.Options(disk.EnvironmentPath));
        long next = 0;
        Exception? first = null;
        async Task Caller()
        {
            while (Volatile.Read(ref first) is null)
            {
                long key = Interlocked.Increment(ref next);
                try
                {
                    await env.WriteAsync(key, static (tx, k) => tx.CreateTree("t").Put(LargeValues.Key(k), LargeValues.Value(k)));
                    lock (acknowledged)
                        acknowledged.Add(key);
                }
                catch (Exception e) when (e is DiskFullException or EnvironmentFailedException)
                {
                    Interlocked.CompareExchange(ref first, e, null);
                }
            }
        }
        await Task.WhenAll(Enumerable.Range(0, 16).Select(_ => Task.Run(Caller)));
        output.WriteLine($"{acknowledged.Count} merged commits, then {first!.GetType().Name}: {first.Message}");

        disk.FreeFiller();
        if (env.HasFailed)
        {
            // A full disk met by a merged batch's journal write latches the environment: it closes without a flush and
            // the next open recovers everything from the journals, on the same disk.
            env.Dispose();
            env = StorageEnvironment.Open(LargeValues.Options(disk.EnvironmentPath));
        }
        CommitOnThenCloseAndReopen(env, disk, acknowledged, next + 1, CommitsAfterFreeing, KeepFree);
    }

    [Fact]
    public async Task A_writer_killed_at_the_first_full_disk_error_recovers_and_closes_cleanly_on_that_disk()
    {
        using var dir = new TestDirectory("disk-full-checkpoint-kill");
        using var disk = SmallDisk(dir, 4096);
        if (disk is null)
            return;
        var acknowledged = new List<long>();
        using (var child = ChildProcess.Start("fill-disk", disk.EnvironmentPath))
        {
            var error = child.StandardError.ReadToEndAsync();
            while (true)
            {
                string? line = await child.StandardOutput.ReadLineAsync();
                if (line is null)
                    throw new Xunit.Sdk.XunitException($"the child ended before the disk was full: {await error}");
                if (line.StartsWith("ack ", StringComparison.Ordinal))
                {
                    acknowledged.Add(long.Parse(line.AsSpan(4), System.Globalization.CultureInfo.InvariantCulture));
                    continue;
                }
                Assert.StartsWith("full ", line);
                output.WriteLine($"child: {acknowledged.Count} commits, then {line}");
                break;
            }
            child.Kill(); // SIGKILL: nothing of the process's own close runs
            await child.WaitForExitAsync();
        }

        disk.FreeFiller();
        var env = StorageEnvironment.Open(KilledProcess.Reopening(LargeValues.Options(disk.EnvironmentPath)));
        long key = acknowledged.Count == 0 ? 1 : acknowledged.Max() + 1_000;
        CommitOnThenCloseAndReopen(env, disk, acknowledged, key, CommitsAfterFreeing, KeepFree);
    }

    /// <summary>
    /// Once space is back: commits on (<see cref="CommitSome"/>), closes on the same disk (which must succeed) and checks
    /// the reopened environment (<see cref="AssertReopensWithEverything"/>).
    /// </summary>
    private void CommitOnThenCloseAndReopen(StorageEnvironment env, SmallFullDisk disk, List<long> acknowledged, long key, int count, long keepFree)
    {
        int more = CommitSome(env, disk, acknowledged, ref key, count, keepFree);
        output.WriteLine($"{more} of {count} commits after freeing {FillerMegabytes} MiB; {disk.FreeBytes} bytes free before the close");
        env.Dispose();
        AssertReopensWithEverything(disk.EnvironmentPath, acknowledged);
    }

    private SmallFullDisk? SmallDisk(TestDirectory dir, int blockSize) => SmallDisk(output, dir, blockSize);

    internal static SmallFullDisk? SmallDisk(ITestOutputHelper output, TestDirectory dir, int blockSize)
    {
        var disk = SmallFullDisk.TryCreate(dir.Path, DiskMegabytes, blockSize, FillerMegabytes, out string? reason);
        if (disk is null)
            output.WriteLine($"NOT RUN: a real full disk needs a loop mount, which failed here ({reason}).");
        return disk;
    }

    internal static DiskFullException CommitUntilFull(StorageEnvironment env, List<long> acknowledged, ref long key)
    {
        for (; key < 100_000; key++)
        {
            try
            {
                LargeValues.Put(env, key);
                acknowledged.Add(key);
            }
            catch (DiskFullException e)
            {
                key++;
                return e;
            }
        }
        throw new Xunit.Sdk.XunitException("100,000 large values fitted on a 64 MiB file system");
    }

    /// <summary>
    /// Tries up to <paramref name="count"/> more commits (each may find the disk full again), stopping once less than
    /// <paramref name="keepFree"/> bytes are free; returns how many were acknowledged.
    /// </summary>
    internal static int CommitSome(StorageEnvironment env, SmallFullDisk disk, List<long> acknowledged, ref long key, int count, long keepFree)
    {
        int done = 0;
        for (int i = 0; i < count && disk.FreeBytes >= keepFree; i++, key++)
        {
            try
            {
                LargeValues.Put(env, key);
                acknowledged.Add(key);
                done++;
            }
            catch (DiskFullException)
            {
            }
        }
        Assert.False(env.HasFailed);
        return done;
    }

    /// <summary>
    /// Reopens (on the same disk, after the clean close unless <paramref name="afterCleanClose"/> is false), finds every acknowledged key with its value and besides them only
    /// whole values of failed commits, verifies, and closes cleanly again.
    /// </summary>
    internal static void AssertReopensWithEverything(string path, List<long> acknowledged, bool afterCleanClose = true)
    {
        using var env = StorageEnvironment.Open(LargeValues.Options(path));
        if (afterCleanClose)
            Assert.Equal(0, env.GetInfo().TransactionsReplayedAtOpen);
        using (var tx = env.BeginRead())
        {
            var tree = tx.OpenTree("t");
            foreach (long key in acknowledged)
                Assert.True(tree.TryGet(LargeValues.Key(key), out var value) && value.SequenceEqual(LargeValues.Value(key)),
                    $"acknowledged key {key} is missing or wrong");
            var known = acknowledged.ToHashSet();
            int unacknowledged = 0;
            using var cursor = tree.CreateCursor();
            for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext())
            {
                long key = System.Buffers.Binary.BinaryPrimitives.ReadInt64BigEndian(cursor.Key);
                if (known.Contains(key))
                    continue;
                Assert.True(cursor.Value.SequenceEqual(LargeValues.Value(key)), $"key {key} of a failed commit is there half");
                unacknowledged++;
            }
            Assert.True(unacknowledged <= FailedCommitsAtMost, $"{unacknowledged} keys that were never acknowledged");
        }
        env.Verify();
    }
}

/// <summary>
/// A crash part way through a checkpoint that goes journal by journal: the data file's sync or a header copy's sync
/// fails (EIO, injected on this environment's data file only) at one step or between two, the environment fails and
/// closes without another flush, and the next open on the same disk recovers every acknowledged commit from the
/// journals the headers still need, then closes cleanly there.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class DiskFullCheckpointCrashTests(ITestOutputHelper output) : IDisposable
{
    public void Dispose() => PalFaultInjection.Disarm();

    // Each step syncs the data file, then the header copy it writes, then the other copy: 0 is the first step's data
    // sync (nothing of it recorded), 2 the first step's second header copy (both header copies may name it, or one),
    // 3 the second step's data sync (the first step is complete: its journal is gone), 5 the end of the second step.
    [Theory]
    [InlineData(0)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(5)]
    public void A_sync_failing_between_checkpoint_steps_loses_nothing_and_the_next_open_closes_cleanly(int failingSync)
    {
        using var dir = new TestDirectory($"disk-full-checkpoint-crash-{failingSync}");
        using var disk = RealDiskFullCheckpointTests.SmallDisk(output, dir, 4096);
        if (disk is null)
            return;
        var acknowledged = new List<long>();
        var env = StorageEnvironment.Open(LargeValues.Options(disk.EnvironmentPath));
        long key = 1;
        RealDiskFullCheckpointTests.CommitUntilFull(env, acknowledged, ref key);
        disk.FreeFiller();
        RealDiskFullCheckpointTests.CommitSome(env, disk, acknowledged, ref key, RealDiskFullCheckpointTests.CommitsAfterFreeing,
            RealDiskFullCheckpointTests.KeepFree);

        PalFaultInjection.Arm(PalFaultKind.SyncError, after: failingSync, osError: 5,
            pathFilter: Path.Combine(disk.EnvironmentPath, StorageEnvironment.DataFileName));
        var failed = Record.Exception(env.Dispose);
        PalFaultInjection.Disarm();
        output.WriteLine($"sync {failingSync} failed: {failed}");
        Assert.IsType<EnvironmentFailedException>(failed);
        Assert.Contains("syncing the data file", failed.Message);

        RealDiskFullCheckpointTests.AssertReopensWithEverything(disk.EnvironmentPath, acknowledged, afterCleanClose: false);
        RealDiskFullCheckpointTests.AssertReopensWithEverything(disk.EnvironmentPath, acknowledged);
    }
}
