using System.Collections.Concurrent;
using System.Diagnostics;

namespace Cairn.Cluster.Node;

/// <summary>A point in a replication round (docs/benchmarks.md, "Cairn.Cluster, where a round goes").</summary>
internal enum RoundStage
{
    /// <summary>Leader: a writer's command entered the batcher (recorded once the entry's index is known).</summary>
    Queued,

    /// <summary>Leader: the batcher handed the entry to DotNext (<c>RaftCluster.ReplicateAsync</c>).</summary>
    Sent,

    /// <summary>Leader: DotNext's append of the entry to the leader's log returned.</summary>
    LeaderAppended,

    /// <summary>Follower: an AppendEntries with the entries reached the log.</summary>
    FollowerReceived,

    /// <summary>Follower: the log's append returned (written, not yet flushed).</summary>
    FollowerAppended,

    /// <summary>Follower: the flush of the append returned; the follower answers next.</summary>
    FollowerFlushed,

    /// <summary>Any node: DotNext asked the log to commit up to these entries (on the leader: a majority answered).</summary>
    CommitStarted,

    /// <summary>Any node: that commit returned (DotNext flushed the log and its checkpoint through it).</summary>
    Committed,

    /// <summary>
    /// Any node: DotNext's applier handed the entry to the state machine (so the time from <see cref="Committed"/> is its
    /// wake-up and read of the entry, and the time to <see cref="Applied"/> is Cairn's transaction).
    /// </summary>
    ApplyStarted,

    /// <summary>Any node: the state machine applied the entry.</summary>
    Applied,

    /// <summary>Leader: DotNext's <c>ReplicateAsync</c> returned to the batcher.</summary>
    ReplicateReturned,

    /// <summary>Leader: a writer's <c>WriteAsync</c> resumed with its outcome.</summary>
    CallerCompleted,
}

/// <summary>One recorded point: <paramref name="Stage"/> reached for the log entries <paramref name="First"/>..<paramref name="Last"/> at <paramref name="Timestamp"/> (<see cref="Stopwatch"/> ticks).</summary>
internal readonly record struct RoundEvent(RoundStage Stage, long First, long Last, long Timestamp);

/// <summary>
/// One node's timestamps of the stages of its replication rounds, for the bench (issue 28 item 5): opt-in through
/// the node's test hooks, absent (null, no cost but a null check) otherwise. Stopwatch ticks are one clock for every
/// node of a process, so the bench lines up a leader's and its followers' events by log index.
/// </summary>
internal sealed class RoundRecorder
{
    private readonly ConcurrentQueue<RoundEvent> events = new(); // any thread of the node appends; the bench reads after the run

    public void Record(RoundStage stage, long first, long last) => events.Enqueue(new RoundEvent(stage, first, last, Stopwatch.GetTimestamp()));

    public void Record(RoundStage stage, long index) => Record(stage, index, index);

    /// <summary>Records <paramref name="stage"/> for <paramref name="index"/> at an earlier <paramref name="timestamp"/> (a stage whose index was not known then).</summary>
    public void RecordAt(RoundStage stage, long index, long timestamp) => events.Enqueue(new RoundEvent(stage, index, index, timestamp));

    /// <summary>The events so far, and forgets them (the bench takes one run's events at a time).</summary>
    public RoundEvent[] Drain()
    {
        var drained = new List<RoundEvent>();
        while (events.TryDequeue(out var next))
            drained.Add(next);
        return drained.ToArray();
    }
}
