using System.Buffers;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
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
        await leader.ApplyAsync(1, 45, client);
        var bytes = await leader.SnapshotBytesAsync();
        var damaged = bytes.ToArray();
        damaged[damaged.Length / 2] ^= 0x01;

        await using var follower = new SnapshotNode(directory.File("follower"), snapshotInterval: 10);
        await using var log = new WriteAheadLog(new WriteAheadLog.Options { Location = directory.File("raft") }, follower.Machine);
        await log.InitializeAsync();
        for (var index = 1; index <= 5; index++)
            await AppendCommitAndApply(log, index, client);
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

    private static async Task AppendCommitAndApply(WriteAheadLog log, long index, Guid client)
    {
        await log.AppendAsync(new BinaryLogEntry { Content = SnapshotNode.Put(client, index).ToArray(), Term = 2 }, index);
        await log.CommitAsync(index);
        await log.WaitForApplyAsync(index);
    }

    /// <summary>A snapshot as the network hands it over: bytes, the index it covers, its term.</summary>
    private sealed class ReceivedSnapshot(byte[] bytes, long index, long term) : ISnapshot
    {
        public long Index => index;

        public long Term => term;

        public DateTimeOffset Timestamp => DateTimeOffset.UnixEpoch;

        public bool IsReusable => true;

        public long? Length => bytes.Length;

        public ValueTask WriteToAsync<TWriter>(TWriter writer, CancellationToken token)
            where TWriter : IAsyncBinaryWriter
            => writer.Invoke(bytes, token);
    }
}
