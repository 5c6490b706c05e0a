using Cairn.Cluster.Tests.Nemesis;
using Cairn.Tests.Support;
using DotNext.IO.Log;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
using System.Buffers;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// DotNext 6.12 wakes one waiter of its flusher at a time (a second waiter at once throws on a pool thread and ends
/// the process), so <see cref="FlushingRaftLog"/> lets one caller at a time wait on it: a follower's flush after an
/// append, a commit (DotNext's own, through the interface), or an explicit flush. Each case holds a first caller at
/// the point where it would wait on the flusher, starts a second, and requires the second to queue, not to reach
/// the flusher beside the first; then both finish and the log is flushed through both entries.
/// </summary>
public sealed class FlushingRaftLogTests : IDisposable
{
    private static readonly Guid Client = Guid.NewGuid();
    private readonly TestDirectory directory = new("flushing-raft-log");

    public void Dispose() => directory.Dispose();

    public enum SecondCaller { Commit, FollowerAppend, Flush }

    [Theory]
    [InlineData(SecondCaller.Commit)]
    [InlineData(SecondCaller.FollowerAppend)]
    [InlineData(SecondCaller.Flush)]
    public async Task A_second_caller_waits_for_its_turn_while_a_followers_flush_waits_on_the_flusher(SecondCaller second)
    {
        var location = directory.File("raft");
        await using var node = new Snapshots.SnapshotNode(directory.File("node"), snapshotInterval: 0);
        await using var log = new FlushingRaftLog(new WriteAheadLog.Options { Location = location }, node.Machine);
        await log.InitializeAsync();
        IAuditTrail<IRaftLogEntry> trail = log; // how DotNext's RaftCluster reaches the log
        var hooks = log.ForTestingPurposesOnly();
        var atFlusher = 0;
        var queued = 0;
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        hooks.Queued = () => Interlocked.Increment(ref queued);
        hooks.BeforeFlusherWait = () => Interlocked.Increment(ref atFlusher) == 1 ? release.Task : Task.CompletedTask;

        var first = trail.AppendAsync(Entries(1), startIndex: 1).AsTask();
        await Eventually.HoldsAsync(() => Volatile.Read(ref atFlusher) >= 1, () => "the first append never reached its flush");
        var secondTask = second switch
        {
            SecondCaller.Commit => trail.CommitAsync(1).AsTask(),
            SecondCaller.FollowerAppend => trail.AppendAsync(Entries(2), startIndex: 2).AsTask(),
            _ => log.FlushAsync(),
        };
        await Eventually.HoldsAsync(() => Volatile.Read(ref queued) == 1 || Volatile.Read(ref atFlusher) == 2,
            () => "the second caller neither queued nor reached the flusher");
        Assert.Equal(1, Volatile.Read(ref atFlusher));
        Assert.False(secondTask.IsCompleted);

        release.SetResult();
        await first;
        await secondTask;
        Assert.Equal(2, Volatile.Read(ref atFlusher));
        Assert.True(RaftCheckpoint.FlushedThrough(location) >= log.LastEntryIndex,
            $"flushed through {RaftCheckpoint.FlushedThrough(location)}, last entry {log.LastEntryIndex}");
    }

    private static LogEntryProducer<BinaryLogEntry> Entries(long index)
        => new(new BinaryLogEntry { Content = Snapshots.SnapshotNode.Put(Client, index).ToArray(), Term = 1 });
}
