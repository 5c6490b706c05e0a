using System.Buffers;
using System.Buffers.Binary;
using Cairn.Cluster.Commands;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.StateMachine;

/// <summary>
/// A node's Cairn environment as DotNext's state machine. Each committed log entry is applied in one Cairn write
/// transaction that also stores the entry's index (<see cref="ClusterTrees.Applied"/>) and the client's session
/// (<see cref="SessionTable"/>), so after a crash the environment holds an entry's effects exactly when it holds its
/// index, and a replayed entry at or below that index is skipped. It reports no snapshot, so DotNext's log keeps
/// every entry and replays from the start after a restart (docs/decisions.md, issue 28, K, says why and what a
/// snapshot would need).
/// </summary>
internal sealed class CairnStateMachine : IStateMachine
{
    /// <summary>The default bound on the dedup table, in client sessions.</summary>
    public const int DefaultSessionCapacity = 65_536;

    private static readonly byte[] AppliedKey = "index"u8.ToArray();
    private readonly int sessionCapacity;
    private long appliedIndex; // written only by ApplyAsync, which DotNext never runs concurrently; read by any thread
    private long appliedTerm; // the same; in memory only (0 after a restart until an entry is applied)

    public CairnStateMachine(StorageEnvironment environment, int sessionCapacity = DefaultSessionCapacity)
    {
        ArgumentNullException.ThrowIfNull(environment);
        ArgumentOutOfRangeException.ThrowIfLessThan(sessionCapacity, 1);
        Environment = environment;
        this.sessionCapacity = sessionCapacity;
        appliedIndex = ReadAppliedIndex(environment);
    }

    /// <summary>The environment the entries are applied to; read it, never write it.</summary>
    public StorageEnvironment Environment { get; }

    /// <summary>The last log index whose effects the environment holds.</summary>
    public long AppliedIndex => Volatile.Read(ref appliedIndex);

    /// <summary>
    /// The term of the last entry DotNext's log handed to <see cref="ApplyAsync(LogEntry, CancellationToken)"/> since
    /// this process started. A leader whose term this is has had an entry of its own term committed, so its commit
    /// index covers every entry of earlier terms (Raft's condition for serving a read index).
    /// </summary>
    public long AppliedTerm => Volatile.Read(ref appliedTerm);

    ISnapshot? ISnapshotManager.Snapshot => null;

    ValueTask ISnapshotManager.ReclaimGarbageAsync(long watermark, CancellationToken token) => ValueTask.CompletedTask;

    public async ValueTask<long> ApplyAsync(LogEntry entry, CancellationToken token)
    {
        if (entry.IsSnapshot)
        {
            // This state machine never reports a snapshot, so no leader of this build sends one.
            throw new CorruptCommandException(entry.Index, 0, "a snapshot entry; installing snapshots is not built yet");
        }

        var payload = !entry.IsConfiguration && entry.TryGetPayload(out var bytes) ? bytes : ReadOnlySequence<byte>.Empty;
        var waiter = entry.Context as ApplyWaiter;
        var outcome = await ApplyAsync(entry.Index, payload, waiter?.Expected, token).ConfigureAwait(false);
        Volatile.Write(ref appliedTerm, long.Max(appliedTerm, entry.Term));
        waiter?.TrySetResult(outcome);
        return entry.Index;
    }

    /// <summary>Applies the entry at <paramref name="index"/> whose payload is <paramref name="payload"/> (empty: a no-op).</summary>
    /// <param name="index">The entry's log index.</param>
    /// <param name="payload">The entry's bytes.</param>
    /// <param name="expected">The command a waiting writer appended at this index, to tell it if another took its place.</param>
    /// <param name="token">Checked before the entry is applied; the apply itself does not wait.</param>
    internal ValueTask<ApplyOutcome> ApplyAsync(long index, ReadOnlySequence<byte> payload, OperationId? expected, CancellationToken token)
    {
        token.ThrowIfCancellationRequested();
        if (index <= AppliedIndex)
            return ValueTask.FromResult(new ApplyOutcome(ApplyStatus.AlreadyApplied, 0));
        var command = payload.IsEmpty ? null : CommandCodec.Decode(payload.IsSingleSegment ? payload.FirstSpan : payload.ToArray(), index);
        var outcome = ApplyLazily(index, command);
        if (outcome.Status != ApplyStatus.AlreadyApplied)
            Volatile.Write(ref appliedIndex, index);
        return ValueTask.FromResult(expected is { } id && command?.Id != id ? new ApplyOutcome(ApplyStatus.Replaced, 0) : outcome);
    }

    /// <summary>
    /// Applies one entry in a lazily committed transaction: published at once (a read here sees it), made durable by
    /// Cairn's next journal write, not waited for. The Raft log already holds the entry durably, and DotNext drops no
    /// entry above the state machine's snapshot index (this one reports none), so an entry a crash takes from Cairn
    /// is applied again from the log on restart; a durable commit per entry made the applier, which runs one entry at
    /// a time, the cluster's bottleneck (docs/decisions.md, issue 28, C cluster bench). Only the applier writes the
    /// environment, so the write lock is free at once.
    /// </summary>
    private ApplyOutcome ApplyLazily(long index, ClusterCommand? command)
    {
        using var transaction = Environment.BeginWrite();
        var outcome = Apply(transaction, index, command);
        if (outcome.Status != ApplyStatus.AlreadyApplied)
            transaction.Commit(CommitMode.Lazy);
        return outcome;
    }

    /// <summary>One entry's transaction: the skip guard, the dedup check, the effects, the applied index.</summary>
    private ApplyOutcome Apply(WriteTransaction transaction, long index, ClusterCommand? command)
    {
        var applied = transaction.CreateTree(ClusterTrees.Applied);
        if (index <= ReadIndex(applied))
            return new ApplyOutcome(ApplyStatus.AlreadyApplied, 0);

        var outcome = new ApplyOutcome(ApplyStatus.NoOp, index);
        if (command is not null)
        {
            var sessions = new SessionTable(transaction, sessionCapacity);
            if (sessions.Admit(command.Id, out outcome))
            {
                var tree = transaction.CreateTree(command.Tree);
                foreach (var operation in command.Operations)
                {
                    if (operation.Kind == ClusterOperationKind.Put)
                        tree.Put(operation.Key, operation.Value);
                    else
                        tree.Delete(operation.Key);
                }

                sessions.Record(command.Id, index);
                outcome = new ApplyOutcome(ApplyStatus.Applied, index);
            }
        }

        Span<byte> value = stackalloc byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(value, index);
        applied.Put(AppliedKey, value);
        return outcome;
    }

    private static long ReadAppliedIndex(StorageEnvironment environment)
    {
        using var read = environment.BeginRead();
        return read.TryOpenTree(ClusterTrees.Applied, out var tree) ? ReadIndex(tree) : 0;
    }

    private static long ReadIndex(Tree applied)
        => applied.TryGet(AppliedKey, out var value) ? BinaryPrimitives.ReadInt64LittleEndian(value) : 0;
}
