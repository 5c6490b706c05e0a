namespace Cairn.Cluster;

/// <summary>
/// Test hooks of a <see cref="FlushingRaftLog"/>: points where a test holds a caller of the flusher to make an
/// overlap of two callers deterministic. The log creates them only when a test asks
/// (<see cref="FlushingRaftLog.ForTestingPurposesOnly"/>): in production there are none.
/// </summary>
internal sealed class FlushingRaftLogTestHooks
{
    /// <summary>On a caller that finds the flusher's turn taken, before it waits for it.</summary>
    public Action? Queued { get; set; }

    /// <summary>On a caller holding the turn, just before it waits on DotNext's flusher (a flush or a commit).</summary>
    public Func<Task>? BeforeFlusherWait { get; set; }
}
