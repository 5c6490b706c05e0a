using System.Buffers;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
using Cairn.Cluster.StateMachine;
using Cairn.Tests.Support;

namespace Cairn.Cluster.Tests.Snapshots;

/// <summary>
/// A follower's DotNext WriteAheadLog given a snapshot the way RaftCluster gives it one (AppendAsync of a snapshot
/// entry at its index): a damaged one is refused and the log goes on; a whole one is installed and the log resumes
/// after it.
/// </summary>
public sealed class SnapshotThroughLogTests : IDisposable
{
    private readonly TestDirectory directory = new("cluster-snapshot-log");

    public void Dispose() => directory.Dispose();

    [Fact]
    public async Task A_damaged_snapshot_is_refused_by_the_log_and_a_whole_one_installed_after_which_the_log_resumes()
    {
        var client = Guid.NewGuid();
        await using var leader = new SnapshotNode(directory.File("leader"), snapshotInterval: 10);
        var (bytes, damaged) = await SnapshotAndDamagedCopyAsync(leader, client);
        await using var follower = new SnapshotNode(directory.File("follower"), snapshotInterval: 10);
        await using var log = await LogWithFiveEntriesAsync(follower.Machine, client);
        var before = follower.Dump();

        var refused = await Assert.ThrowsAsync<CorruptSnapshotException>(() => log.AppendAsync(new ReceivedSnapshot(damaged, 30, 2), 30).AsTask());
        Assert.Equal(30, refused.SnapshotIndex);
        Assert.Equal(before, follower.Dump());
        Assert.Equal(5, log.LastCommittedEntryIndex);

        await log.AppendAsync(new ReceivedSnapshot(bytes, 30, 2), 30);
        Assert.Equal(30, log.LastCommittedEntryIndex);
        Assert.Equal(leader.Dump(), follower.Dump());

        // The leader then sends the entries after its snapshot point: those the environment holds are skipped.
        for (var index = 31; index <= 46; index++)
            await AppendCommitAndApply(log, index, client);
        Assert.Equal(46, follower.Machine.AppliedIndex);
        await leader.ApplyAsync(46, 46, client);
        Assert.Equal(leader.Dump(), follower.Dump());
        follower.Slot.Current.Verify();
    }

    [Fact]
    public async Task A_snapshot_install_that_leaves_the_node_as_it_was_is_the_request_failing_and_only_a_lost_environment_stops_the_node()
    {
        var client = Guid.NewGuid();
        await using var leader = new SnapshotNode(directory.File("leader"), snapshotInterval: 10);
        var (bytes, damaged) = await SnapshotAndDamagedCopyAsync(leader, client);
        await using var follower = new SnapshotNode(directory.File("follower"), snapshotInterval: 10);
        var applier = new FailStopStateMachine(follower.Machine, () => follower.Slot.HoldsEnvironment);
        await using var log = await LogWithFiveEntriesAsync(applier, client);
        var before = follower.Dump();

        // A damaged stream and one whose connection breaks half way: refused, the node as it was and still running.
        await Assert.ThrowsAsync<CorruptSnapshotException>(() => log.AppendAsync(new ReceivedSnapshot(damaged, 30, 2), 30).AsTask());
        await Assert.ThrowsAsync<IOException>(() => log.AppendAsync(new ReceivedSnapshot(bytes, 30, 2) { BreakAfter = bytes.Length / 2 }, 30).AsTask());
        Assert.False(applier.Failure.IsCompleted, "the node stopped over a failed install that left it as it was");
        Assert.Equal(before, follower.Dump());
        Assert.Equal(5, log.LastCommittedEntryIndex);

        // The leader's next attempt installs it, and the log goes on.
        await log.AppendAsync(new ReceivedSnapshot(bytes, 30, 2), 30);
        Assert.Equal(leader.Dump(), follower.Dump());
        Assert.False(applier.Failure.IsCompleted);

        // An install whose swap fails and whose rollback cannot reopen the old environment either: the node has nothing
        // to go on with, so it stops.
        await leader.ApplyAsync(46, 60, client);
        var newer = await leader.SnapshotBytesAsync();
        follower.InstallerOpensFail = true;
        await Assert.ThrowsAsync<IOException>(() => log.AppendAsync(new ReceivedSnapshot(newer, 60, 2), 60).AsTask());
        Assert.False(follower.Slot.HoldsEnvironment);
        Assert.IsType<IOException>(await applier.Failure.WaitAsync(TimeSpan.FromMinutes(1)));
    }

    /// <summary>The leader's snapshot after 45 entries, and a copy with one bit flipped in its middle.</summary>
    private static async Task<(byte[] Whole, byte[] Damaged)> SnapshotAndDamagedCopyAsync(SnapshotNode leader, Guid client)
    {
        await leader.ApplyAsync(1, 45, client);
        var bytes = await leader.SnapshotBytesAsync();
        var damaged = bytes.ToArray();
        damaged[damaged.Length / 2] ^= 0x01;
        return (bytes, damaged);
    }

    /// <summary>A follower's DotNext log driving <paramref name="machine"/>, with entries 1-5 applied.</summary>
    private async Task<WriteAheadLog> LogWithFiveEntriesAsync(IStateMachine machine, Guid client)
    {
        var log = new WriteAheadLog(new WriteAheadLog.Options { Location = directory.File("raft") }, machine);
        await log.InitializeAsync();
        for (var index = 1; index <= 5; index++)
            await AppendCommitAndApply(log, index, client);
        return log;
    }

    private static async Task AppendCommitAndApply(WriteAheadLog log, long index, Guid client)
    {
        await log.AppendAsync(new BinaryLogEntry { Content = SnapshotNode.Put(client, index).ToArray(), Term = 2 }, index);
        await log.CommitAsync(index);
        await log.WaitForApplyAsync(index);
    }

    /// <summary>A snapshot as the network hands it over: bytes, the index it covers, its term.</summary>
    private sealed class ReceivedSnapshot(byte[] bytes, long index, long term) : ISnapshot
    {
        /// <summary>Set, the stream ends with an <see cref="IOException"/> after this many bytes, as a reset connection does.</summary>
        public int? BreakAfter { get; init; }

        public long Index => index;

        public long Term => term;

        public DateTimeOffset Timestamp => DateTimeOffset.UnixEpoch;

        public bool IsReusable => true;

        public long? Length => bytes.Length;

        public ValueTask WriteToAsync<TWriter>(TWriter writer, CancellationToken token)
            where TWriter : IAsyncBinaryWriter
            => BreakAfter is { } cut ? BreakAsync(writer, cut, token) : writer.Invoke(bytes, token);

        private async ValueTask BreakAsync<TWriter>(TWriter writer, int cut, CancellationToken token)
            where TWriter : IAsyncBinaryWriter
        {
            await writer.Invoke(bytes.AsMemory(0, cut), token);
            throw new IOException("Connection reset by peer (a test's broken transfer).");
        }
    }
}
