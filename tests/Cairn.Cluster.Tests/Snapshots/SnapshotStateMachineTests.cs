using System.Buffers;
using Cairn.Cluster.Snapshots;
using Cairn.Tests.Support;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.Tests.Snapshots;

/// <summary>
/// Snapshots of the Cairn state machine alone and under DotNext's own WriteAheadLog, on real environments on disk:
/// when the point moves, that the log drops its pages and a restart replays only the tail, and installing another
/// node's snapshot: whole, damaged, truncated, or interrupted by a crash at each step of the folder swap.
/// </summary>
public sealed class SnapshotStateMachineTests : IDisposable
{
    private readonly TestDirectory directory = new("cluster-snapshots");

    public void Dispose() => directory.Dispose();

    [Fact]
    public async Task The_snapshot_point_trails_the_applied_index_by_one_to_two_intervals_and_survives_a_restart()
    {
        await using (var node = new SnapshotNode(directory.File("a"), snapshotInterval: 10))
        {
            await node.ApplyAsync(1, 19, Guid.NewGuid());
            Assert.Equal(0, node.Machine.SnapshotIndex); // 10 is the candidate, not yet the snapshot
            await node.ApplyAsync(20, 35, Guid.NewGuid());
            Assert.Equal(20, node.Machine.SnapshotIndex);
            Assert.Equal(1, ((ISnapshotManager)node.Machine).Snapshot!.Term);
        }

        await using var reopened = new SnapshotNode(directory.File("a"), snapshotInterval: 10);
        Assert.Equal(20, reopened.Machine.SnapshotIndex);
        Assert.Equal(35, reopened.Machine.AppliedIndex);
    }

    [Fact]
    public async Task With_snapshots_DotNexts_log_drops_its_pages_and_stops_growing()
    {
        const int Entries = 600;
        var withSnapshots = await LogBytesAfterAsync("with", snapshotInterval: 50, Entries);
        var without = await LogBytesAfterAsync("without", snapshotInterval: 0, Entries);
        // The log keeps one to two intervals (at most 100 of 600 entries) plus the pages those share; without
        // snapshots it keeps all 600.
        Assert.True(withSnapshots * 3 < without, $"log with snapshots {withSnapshots} B, without {without} B");
    }

    [Fact]
    public async Task A_restart_after_a_snapshot_replays_only_the_entries_after_it()
    {
        var client = Guid.NewGuid();
        await using (var node = new SnapshotNode(directory.File("n"), snapshotInterval: 50))
        await using (var log = new WriteAheadLog(new WriteAheadLog.Options { Location = directory.File("raft") }, node.Machine))
        {
            await log.InitializeAsync();
            for (var index = 1; index <= 500; index++)
                await AppendCommitAndApply(log, SnapshotNode.Put(client, index).ToArray());
            Assert.Equal(450, node.Machine.SnapshotIndex);
        }

        await using (var node = new SnapshotNode(directory.File("n"), snapshotInterval: 50))
        await using (var log = new WriteAheadLog(new WriteAheadLog.Options { Location = directory.File("raft") }, node.Machine))
        {
            await log.InitializeAsync();
            Assert.Equal(500, log.LastAppliedIndex);
            Assert.Equal(500, node.Machine.AppliedIndex);
            // Only the entries after the snapshot point come back (all 500 did before snapshots).
            Assert.Equal(50, node.Machine.EntriesFromLog);
            await AppendCommitAndApply(log, SnapshotNode.Put(client, 501).ToArray());
            Assert.Equal(501, node.Machine.AppliedIndex);
            node.Slot.Current.Verify();
        }
    }

    [Fact]
    public async Task A_follower_installs_a_leaders_snapshot_and_holds_exactly_its_state()
    {
        await using var leader = new SnapshotNode(directory.File("leader"), snapshotInterval: 10);
        await using var follower = new SnapshotNode(directory.File("follower"), snapshotInterval: 10);
        await leader.ApplyAsync(1, 45, Guid.NewGuid());
        await follower.ApplyAsync(1, 5, Guid.NewGuid()); // a different, older history: the install replaces it all
        var bytes = await leader.SnapshotBytesAsync();

        Assert.Equal(30, await follower.InstallAsync(bytes, leader.Machine.SnapshotIndex, term: 3));
        Assert.Equal(leader.Dump(), follower.Dump());
        Assert.Equal(45, follower.Machine.AppliedIndex);
        Assert.Equal(30, follower.Machine.SnapshotIndex);
        Assert.Equal(3, ((ISnapshotManager)follower.Machine).Snapshot!.Term);
        Assert.Equal(1, follower.Machine.SnapshotsInstalled);
        follower.Slot.Current.Verify();
        Assert.False(Directory.Exists(follower.Folders.Install));
        // Opened once, where it stays: its recovery is the check, and no close and reopen follow it.
        Assert.Equal(1, follower.InstallerOpens);

        // It goes on from the log: an entry it holds is skipped, the next one applied.
        await follower.ApplyAsync(40, 46, Guid.NewGuid());
        Assert.Equal(46, follower.Machine.AppliedIndex);
    }

    [Theory]
    [InlineData(20)] // the stream header
    [InlineData(100)] // the first record's header or name
    [InlineData(-40)] // the end record
    [InlineData(0, true)] // cut short in the middle
    public async Task A_damaged_or_truncated_snapshot_is_refused_naming_its_index_and_offset_and_the_node_is_unchanged(int at, bool truncate = false)
    {
        await using var leader = new SnapshotNode(directory.File("leader"), snapshotInterval: 10);
        await using var follower = new SnapshotNode(directory.File("follower"), snapshotInterval: 10);
        await leader.ApplyAsync(1, 45, Guid.NewGuid());
        await follower.ApplyAsync(1, 5, Guid.NewGuid());
        var before = follower.Dump();
        var bytes = await leader.SnapshotBytesAsync();
        if (truncate)
            bytes = bytes[..(bytes.Length / 2)];
        else
            bytes[at >= 0 ? at : bytes.Length + at] ^= 0x20;

        var refused = await Assert.ThrowsAsync<CorruptSnapshotException>(() => follower.InstallAsync(bytes, 30));
        Assert.Equal(30, refused.SnapshotIndex);
        Assert.InRange(refused.Offset, 0, bytes.Length);
        Assert.Contains("index 30", refused.Message);
        Assert.Equal(before, follower.Dump());
        Assert.Equal(5, follower.Machine.AppliedIndex);
        Assert.Equal(0, follower.Machine.SnapshotsInstalled);
        Assert.False(Directory.Exists(follower.Folders.Install));
        follower.Slot.Current.Verify();
    }

    [Fact]
    public async Task A_snapshot_that_does_not_hold_the_index_it_claims_is_refused()
    {
        await using var leader = new SnapshotNode(directory.File("leader"), snapshotInterval: 10);
        await using var follower = new SnapshotNode(directory.File("follower"), snapshotInterval: 10);
        await leader.ApplyAsync(1, 25, Guid.NewGuid());
        await follower.ApplyAsync(1, 5, Guid.NewGuid());
        var before = follower.Dump();
        var bytes = await leader.SnapshotBytesAsync();
        // The check comes after the swap: the refusal rolls the folders back and reopens the old environment.
        var refused = await Assert.ThrowsAsync<CorruptSnapshotException>(() => follower.InstallAsync(bytes, 90));
        Assert.Equal(90, refused.SnapshotIndex);
        Assert.Equal(5, follower.Machine.AppliedIndex);
        Assert.Equal(before, follower.Dump());
        follower.Slot.Current.Verify();
        Assert.Equal("data", Path.GetFileName(Assert.Single(Directory.EnumerateFileSystemEntries(follower.Directory))));
    }

    [Fact]
    public async Task An_install_marked_ready_before_its_swap_by_an_earlier_version_rolls_forward()
    {
        var node = directory.File("node");
        await using (var leader = new SnapshotNode(directory.File("leader"), snapshotInterval: 10))
        {
            await leader.ApplyAsync(1, 25, Guid.NewGuid());
            await using (var old = new SnapshotNode(node, snapshotInterval: 10))
                await old.ApplyAsync(1, 5, Guid.NewGuid());
            // The earlier layout: the checked install beside the old data, and the marker written before any rename.
            await using (var restored = new SnapshotNode(directory.File("restored"), snapshotInterval: 10))
                await restored.InstallAsync(await leader.SnapshotBytesAsync(), 20);
            Directory.Move(Path.Combine(directory.File("restored"), "data"), Path.Combine(node, "data.install"));
            File.WriteAllBytes(Path.Combine(node, "install.ready"), []);

            await using var reopened = new SnapshotNode(node, snapshotInterval: 10);
            Assert.Equal(leader.Dump(), reopened.Dump());
            Assert.Equal(25, reopened.Machine.AppliedIndex);
        }

        Assert.Equal("data", Path.GetFileName(Assert.Single(Directory.EnumerateFileSystemEntries(node))));
    }

    [Theory]
    [InlineData((int)SwapStep.Restored, false)]
    [InlineData((int)SwapStep.OldRetired, false)]
    [InlineData((int)SwapStep.NewInPlace, false)] // swapped in, not yet opened: nobody checked it
    [InlineData((int)SwapStep.Checked, false)] // opened and checked, the commit not yet marked
    [InlineData((int)SwapStep.Marked, true)]
    public async Task A_node_killed_during_an_install_reopens_with_the_old_state_or_the_new_never_a_mix(int crashStep, bool expectNew)
    {
        var crashAt = (SwapStep)crashStep;
        var image = directory.File("image");
        await using var leader = new SnapshotNode(directory.File("leader"), snapshotInterval: 10);
        await leader.ApplyAsync(1, 45, Guid.NewGuid());
        string oldState;
        // The hook copies the node's folder as a crash at that step would leave it on disk (from Checked on, the
        // installed environment in it is open, as a killed process's would be, hence a copy that ignores its lock).
        await using (var follower = new SnapshotNode(directory.File("follower"), snapshotInterval: 10,
                         step => { if (step == crashAt) Cluster.LazyApplyTests.CopyFiles(directory.File("follower"), image); }))
        {
            await follower.ApplyAsync(1, 5, Guid.NewGuid());
            oldState = follower.Dump();
            await follower.InstallAsync(await leader.SnapshotBytesAsync(), 30);
        }

        await using var reopened = new SnapshotNode(image, snapshotInterval: 10);
        Assert.Equal(expectNew ? leader.Dump() : oldState, reopened.Dump());
        Assert.Equal(expectNew ? 45 : 5, reopened.Machine.AppliedIndex);
        reopened.Slot.Current.Verify();
        Assert.Equal("data", Path.GetFileName(Assert.Single(Directory.EnumerateFileSystemEntries(image)))); // no leftovers
    }

    private async Task<long> LogBytesAfterAsync(string name, long snapshotInterval, int entries)
    {
        var logPath = directory.File($"raft-{name}");
        await using var node = new SnapshotNode(directory.File($"node-{name}"), snapshotInterval);
        await using var log = new WriteAheadLog(new WriteAheadLog.Options { Location = logPath }, node.Machine);
        await log.InitializeAsync();
        var client = Guid.NewGuid();
        for (var index = 1; index <= entries; index++)
            await AppendCommitAndApply(log, SnapshotNode.Put(client, index, valueBytes: 2000).ToArray());
        await log.FlushAsync();
        if (snapshotInterval > 0)
        {
            // DotNext drops the pages in the background after the checkpoint that follows the snapshot point's move,
            // and only when its previous drop has finished: a move that comes while one runs is skipped until the
            // next move (WriteAheadLog's flusher). So the log may still hold a few intervals more than it will; more
            // entries move the point again until a drop catches up. Ten intervals are far more than that takes; a log
            // that never drops its pages fails the wait below.
            for (var extra = 1; FolderBytes(logPath) * 3 >= entries * 2000L && extra <= 10 * snapshotInterval; extra++)
            {
                await AppendCommitAndApply(log, SnapshotNode.Put(client, entries + extra, valueBytes: 2000).ToArray());
                await log.FlushAsync();
            }
            await Nemesis.Eventually.HoldsAsync(() => FolderBytes(logPath) * 3 < entries * 2000L, () => $"log still {FolderBytes(logPath)} B");
        }
        return FolderBytes(logPath);
    }

    private static long FolderBytes(string path)
        => new DirectoryInfo(path).EnumerateFiles("*", SearchOption.AllDirectories).Sum(LengthOrNothing);

    // DotNext deletes the log's pages in the background, also while this counts (seen under load: the listing named a
    // page that was gone when its length was asked): a page deleted in between holds no bytes.
    private static long LengthOrNothing(FileInfo file)
    {
        try
        {
            return file.Length;
        }
        catch (FileNotFoundException)
        {
            return 0;
        }
    }

    private static async Task AppendCommitAndApply(WriteAheadLog log, byte[] payload)
    {
        var index = await log.AppendAsync(new BinaryLogEntry { Content = payload, Term = 1 });
        await log.CommitAsync(index);
        await log.WaitForApplyAsync(index);
    }
}
