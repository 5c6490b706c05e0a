using DotNext.IO.Log;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
using Cairn.Cluster.Node;

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

    /// <summary>The bench's stage recorder (<see cref="ClusterNode.TestHooks.RecordRounds"/>); null otherwise.</summary>
    internal RoundRecorder? Rounds { get; set; }

    public new async ValueTask AppendAsync<TEntry>(ILogEntryProducer<TEntry> entries, long startIndex, bool skipCommitted = false, CancellationToken token = default)
        where TEntry : IRaftLogEntry
    {
        // A heartbeat brings no entries: nothing new to make durable, so no flush on the heartbeat's path.
        var count = entries.RemainingCount;
        var rounds = count > 0 ? Rounds : null;
        rounds?.Record(RoundStage.FollowerReceived, startIndex, startIndex + count - 1);
        await base.AppendAsync(entries, startIndex, skipCommitted, token).ConfigureAwait(false);
        rounds?.Record(RoundStage.FollowerAppended, startIndex, startIndex + count - 1);
        if (count > 0)
            await FlushAsync(token).ConfigureAwait(false);
        rounds?.Record(RoundStage.FollowerFlushed, startIndex, startIndex + count - 1);
    }

    // The leader's append of its own entry (RaftCluster.ReplicateAsync): DotNext's, re-implemented only to be timed.
    public new async ValueTask<long> AppendAsync<TEntry>(TEntry entry, CancellationToken token = default)
        where TEntry : IRaftLogEntry
    {
        var index = await base.AppendAsync(entry, token).ConfigureAwait(false);
        Rounds?.Record(RoundStage.LeaderAppended, index);
        return index;
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
        var rounds = Rounds;
        var first = LastCommittedEntryIndex + 1;
        rounds?.Record(RoundStage.CommitStarted, first, endIndex);
        await TakeTurnAsync(token).ConfigureAwait(false);
        try
        {
            var committed = await base.CommitAsync(endIndex, token).ConfigureAwait(false);
            rounds?.Record(RoundStage.Committed, first, endIndex);
            return committed;
        }
        finally
        {
            flusherTurn.Release();
        }
    }

    /// <summary>
    /// The term of the applied entry at <paramref name="index"/>, or of the snapshot that covers it once the log
    /// dropped it. Every entry counts, the leader's empty ones too, which the state machine never sees: DotNext's
    /// applier skips an entry without payload, so the no-op a new leader commits first is visible only here.
    /// </summary>
    public async ValueTask<long> AppliedTermAtAsync(long index, CancellationToken token)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(index, LastAppliedIndex);
        using var entries = await ReadAsync(index, index, token).ConfigureAwait(false);
        return entries[entries.Count - 1].Term;
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
