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
/// <para>DotNext 6.12 signals the end of a flush to one waiter (its <c>flushCompleted</c> is an
/// <c>AsyncAutoResetEventSlim</c>; a second waiter at once throws on a pool thread and ends the process). Two paths
/// wait on it: <see cref="WriteAheadLog.FlushAsync(CancellationToken)"/> and the slow path of
/// <see cref="WriteAheadLog.CommitAsync(long, CancellationToken)"/>. This class takes both (the commit through the
/// re-implemented interface, which DotNext's leader and follower call) and lets one caller at a time through.</para>
/// </summary>
internal sealed class FlushingRaftLog(WriteAheadLog.Options options, IStateMachine stateMachine)
    : WriteAheadLog(options, stateMachine), IAuditTrail<IRaftLogEntry>
{
    // One caller at a time waits on DotNext's flusher (a flush or a commit); protects its single-waiter completion event.
    private readonly SemaphoreSlim flusherTurn = new(1, 1);
    private FlushingRaftLogTestHooks? testHooks;

    internal FlushingRaftLogTestHooks ForTestingPurposesOnly() => testHooks ??= new();

    public new async ValueTask AppendAsync<TEntry>(ILogEntryProducer<TEntry> entries, long startIndex, bool skipCommitted = false, CancellationToken token = default)
        where TEntry : IRaftLogEntry
    {
        // A heartbeat brings no entries: nothing new to make durable, so no flush on the heartbeat's path.
        var bringsEntries = entries.RemainingCount > 0;
        await base.AppendAsync(entries, startIndex, skipCommitted, token).ConfigureAwait(false);
        if (bringsEntries)
            await FlushAsync(token).ConfigureAwait(false);
    }

    public new async Task FlushAsync(CancellationToken token = default)
    {
        await TakeTurnAsync(token).ConfigureAwait(false);
        try
        {
            await base.FlushAsync(token).ConfigureAwait(false);
        }
        finally
        {
            flusherTurn.Release();
        }
    }

    public new async ValueTask<long> CommitAsync(long endIndex, CancellationToken token = default)
    {
        await TakeTurnAsync(token).ConfigureAwait(false);
        try
        {
            return await base.CommitAsync(endIndex, token).ConfigureAwait(false);
        }
        finally
        {
            flusherTurn.Release();
        }
    }

    private async ValueTask TakeTurnAsync(CancellationToken token)
    {
        if (!flusherTurn.Wait(0))
        {
            testHooks?.Queued?.Invoke();
            await flusherTurn.WaitAsync(token).ConfigureAwait(false);
        }

        if (testHooks?.BeforeFlusherWait is { } hold)
        {
            try
            {
                await hold().ConfigureAwait(false);
            }
            catch
            {
                flusherTurn.Release();
                throw;
            }
        }
    }
}
