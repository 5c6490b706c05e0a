using DotNext.IO.Log;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster;

/// <summary>
/// DotNext's <see cref="WriteAheadLog"/>, except that entries appended from the leader's AppendEntries are flushed
/// before the append returns, so before the follower answers: a leader then counts a follower toward the majority
/// only once the entries are on that follower's disk, and an acknowledged write survives every node losing power.
/// DotNext 6.12's follower (<c>RaftCluster.AppendEntriesAsync</c>) appends through
/// <see cref="IAuditTrail{TEntry}.AppendAsync{TEntryImpl}(ILogEntryProducer{TEntryImpl}, long, bool, CancellationToken)"/>
/// and then commits only up to the leader's commit index, which flushes only that far; its own implementation is
/// final, so this class re-implements the interface member and the follower's calls, which go through the
/// interface, reach it. The flush is the log's own (<see cref="WriteAheadLog.FlushAsync(CancellationToken)"/>: it
/// wakes the background flusher and waits until it has written the log and its checkpoint through the last entry),
/// so the flusher and the commit see one flushed index.
/// </summary>
internal sealed class FlushingRaftLog(WriteAheadLog.Options options, IStateMachine stateMachine)
    : WriteAheadLog(options, stateMachine), IAuditTrail<IRaftLogEntry>
{
    public new async ValueTask AppendAsync<TEntry>(ILogEntryProducer<TEntry> entries, long startIndex, bool skipCommitted = false, CancellationToken token = default)
        where TEntry : IRaftLogEntry
    {
        // A heartbeat brings no entries: nothing new to make durable, so no flush on the heartbeat's path.
        var bringsEntries = entries.RemainingCount > 0;
        await base.AppendAsync(entries, startIndex, skipCommitted, token).ConfigureAwait(false);
        if (bringsEntries)
            await FlushAsync(token).ConfigureAwait(false);
    }
}
