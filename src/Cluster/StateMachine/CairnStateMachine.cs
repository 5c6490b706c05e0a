using System.Buffers;
using System.Buffers.Binary;
using Cairn.Cluster.Commands;
using Cairn.Cluster.Snapshots;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.StateMachine;

/// <summary>
/// A node's Cairn environment as DotNext's state machine. Each committed log entry (one command, or the batch of
/// commands a leader replicated in one round) is applied in one Cairn write transaction that also stores the entry's
/// index (<see cref="ClusterTrees.Applied"/>) and each command's client session (<see cref="SessionTable"/>), so
/// after a crash the environment holds an entry's effects exactly when it holds its index, and a replayed entry at or
/// below that index is skipped. Its snapshot is the environment itself at a
/// snapshot point the apply transactions move every <c>snapshotInterval</c> entries (<see cref="SnapshotSchedule"/>):
/// DotNext drops the log up to it, replays only what follows after a restart, and sends a follower too far behind a
/// backup stream of the environment, which <see cref="SnapshotInstaller"/> installs (docs/cluster.md, "Snapshots").
/// </summary>
internal sealed class CairnStateMachine : IStateMachine
{
    /// <summary>The default bound on the dedup table, in client sessions.</summary>
    public const int DefaultSessionCapacity = 65_536;

    private static readonly byte[] AppliedKey = "index"u8.ToArray();
    private static readonly EntryOutcome Skipped = new(ApplyStatus.AlreadyApplied, []);
    private readonly int sessionCapacity;
    private readonly long snapshotInterval;
    private readonly EnvironmentSlot slot;
    private readonly SnapshotInstaller? installer;
    private long appliedIndex; // written only by ApplyAsync, which DotNext never runs concurrently; read by any thread
    private long appliedTerm; // the same; in memory only (0 after a restart until an entry is applied)
    private long entriesFromLog; // the same: entries DotNext handed to ApplyAsync since this process started
    private long snapshotsInstalled; // the same
    private volatile EnvironmentSnapshot? snapshot; // replaced by ApplyAsync when the point moves; read by DotNext's threads

    /// <summary>A state machine over an environment that takes snapshots but cannot install one (no node folders).</summary>
    public CairnStateMachine(StorageEnvironment environment, int sessionCapacity = DefaultSessionCapacity, long snapshotInterval = 0)
        : this(new EnvironmentSlot(environment ?? throw new ArgumentNullException(nameof(environment))), sessionCapacity, snapshotInterval, null)
    {
    }

    /// <param name="slot">The node's environment, which <paramref name="installer"/> replaces when it installs a snapshot.</param>
    /// <param name="sessionCapacity">The bound on the dedup table, in client sessions.</param>
    /// <param name="snapshotInterval">Entries between snapshot points (0: never take a snapshot).</param>
    /// <param name="installer">Installs a leader's snapshot; null refuses them.</param>
    internal CairnStateMachine(EnvironmentSlot slot, int sessionCapacity, long snapshotInterval, SnapshotInstaller? installer)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(sessionCapacity, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(snapshotInterval);
        this.slot = slot;
        this.sessionCapacity = sessionCapacity;
        this.snapshotInterval = snapshotInterval;
        this.installer = installer;
        var environment = slot.Current;
        appliedIndex = ReadAppliedIndex(environment);
        snapshot = Snapshot(SnapshotSchedule.Read(environment));
    }

    /// <summary>The environment the entries are applied to now (an install replaces it); read it, never write it.</summary>
    public StorageEnvironment Environment => slot.Current;

    /// <summary>The node's environment, through which reads begin (they wait out an install).</summary>
    internal EnvironmentSlot Slot => slot;

    /// <summary>The log index up to which DotNext may drop its log (0: none yet).</summary>
    public long SnapshotIndex => snapshot?.Index ?? 0;

    /// <summary>How many entries DotNext's log handed to this state machine since it was made (a restart's replay included).</summary>
    public long EntriesFromLog => Volatile.Read(ref entriesFromLog);

    /// <summary>How many leader snapshots this state machine installed since it was made.</summary>
    public long SnapshotsInstalled => Volatile.Read(ref snapshotsInstalled);

    /// <summary>The last log index whose effects the environment holds.</summary>
    public long AppliedIndex => Volatile.Read(ref appliedIndex);

    /// <summary>
    /// The term of the last entry DotNext's log handed to <see cref="ApplyAsync(LogEntry, CancellationToken)"/> since
    /// this process started. A leader whose term this is has had an entry of its own term committed, so its commit
    /// index covers every entry of earlier terms (Raft's condition for serving a read index).
    /// </summary>
    public long AppliedTerm => Volatile.Read(ref appliedTerm);

    ISnapshot? ISnapshotManager.Snapshot => snapshot;

    /// <summary>The bench's stage recorder (set through the node's test hooks); null otherwise.</summary>
    internal Node.RoundRecorder? Rounds { get; set; }

    // The snapshot is the live environment: no older version is kept on disk to reclaim.
    ValueTask ISnapshotManager.ReclaimGarbageAsync(long watermark, CancellationToken token) => ValueTask.CompletedTask;

    public async ValueTask<long> ApplyAsync(LogEntry entry, CancellationToken token)
    {
        Interlocked.Increment(ref entriesFromLog);
        Rounds?.Record(Node.RoundStage.ApplyStarted, entry.Index);
        if (entry.IsSnapshot)
            return await InstallAsync(entry, entry.Index, entry.Term, token).ConfigureAwait(false);

        var payload = !entry.IsConfiguration && entry.TryGetPayload(out var bytes) ? bytes : ReadOnlySequence<byte>.Empty;
        var applied = ApplyEntry(entry.Index, payload, token, entry.Term);
        Volatile.Write(ref appliedTerm, long.Max(appliedTerm, entry.Term));
        Rounds?.Record(Node.RoundStage.Applied, entry.Index);
        (entry.Context as ApplyWaiter)?.Complete(applied);
        return entry.Index;
    }

    /// <summary>
    /// Applies a single-command entry (or an empty one, a no-op) and returns that command's outcome, or
    /// <see cref="ApplyStatus.Replaced"/> if it is not <paramref name="expected"/>'s. For tests and tools that apply
    /// entries one by one; DotNext's log goes through <see cref="ApplyAsync(LogEntry, CancellationToken)"/>.
    /// </summary>
    internal ValueTask<ApplyOutcome> ApplyAsync(long index, ReadOnlySequence<byte> payload, OperationId? expected, CancellationToken token, long term = 0)
    {
        var applied = ApplyEntry(index, payload, token, term);
        if (applied.Status == ApplyStatus.AlreadyApplied)
            return ValueTask.FromResult(new ApplyOutcome(ApplyStatus.AlreadyApplied, 0));
        var first = applied.Commands.Count > 0 ? applied.Commands[0] : (CommandOutcome?)null;
        if (expected is { } id && first?.Id != id)
            return ValueTask.FromResult(new ApplyOutcome(ApplyStatus.Replaced, 0));
        return ValueTask.FromResult(first?.Outcome ?? new ApplyOutcome(ApplyStatus.NoOp, index));
    }

    /// <summary>Applies the entry at <paramref name="index"/> whose payload is <paramref name="payload"/> (empty: a no-op).</summary>
    /// <param name="index">The entry's log index.</param>
    /// <param name="payload">The entry's bytes: one command, or a batch of them (<see cref="EntryCodec"/>).</param>
    /// <param name="token">Checked before the entry is applied; the apply itself does not wait.</param>
    /// <param name="term">The entry's term, which a snapshot point at this entry records (0 for an entry outside any log).</param>
    private EntryOutcome ApplyEntry(long index, ReadOnlySequence<byte> payload, CancellationToken token, long term)
    {
        token.ThrowIfCancellationRequested();
        if (index <= AppliedIndex)
            return Skipped;
        var commands = payload.IsEmpty ? [] : EntryCodec.Decode(payload.IsSingleSegment ? payload.FirstSpan : payload.ToArray(), index);
        var (outcome, moved) = ApplyLazily(index, term, commands);
        if (outcome.Status != ApplyStatus.AlreadyApplied)
            Volatile.Write(ref appliedIndex, index);
        // Published only once the transaction that moved it is durable (ApplyLazily), so DotNext never drops an entry the environment could lose.
        if (moved is { } point)
            snapshot = Snapshot(point);
        return outcome;
    }

    /// <summary>
    /// Applies one entry in a lazily committed transaction: published at once (a read here sees it), made durable by
    /// Cairn's next journal write, not waited for. The Raft log already holds the entry, and DotNext drops no entry
    /// above the published snapshot point, so an entry a crash takes from Cairn is applied again from the log on
    /// restart; a durable commit per entry made the applier, which runs one entry at a time, the cluster's bottleneck
    /// (docs/decisions.md, issue 28, C cluster bench). The one transaction that moves the snapshot point commits
    /// durably (which makes every lazy one before it durable too), because once the point is published DotNext may
    /// delete the log up to it. Only the applier writes the environment, so the write lock is free at once.
    /// </summary>
    private (EntryOutcome Outcome, SnapshotPoint? Moved) ApplyLazily(long index, long term, EntryCommand[] commands)
    {
        using var transaction = slot.Current.BeginWrite();
        var result = Apply(transaction, index, term, commands);
        if (result.Outcome.Status != ApplyStatus.AlreadyApplied)
            transaction.Commit(result.Moved is null ? CommitMode.Lazy : CommitMode.Durable);
        return result;
    }

    /// <summary>
    /// Installs a leader's snapshot that covers <paramref name="index"/> (of <paramref name="term"/>) in place of the
    /// environment; the node then reports that point as its snapshot, exactly as DotNext recorded it.
    /// </summary>
    internal async ValueTask<long> InstallAsync(IDataTransferObject received, long index, long term, CancellationToken token)
    {
        if (installer is null)
            throw new CorruptSnapshotException(index, -1, "this state machine has no node folders to install a snapshot into");
        var applied = await installer.InstallAsync(received, index, token).ConfigureAwait(false);
        Volatile.Write(ref appliedIndex, applied);
        snapshot = Snapshot(new SnapshotPoint(index, term));
        Interlocked.Increment(ref snapshotsInstalled);
        return index;
    }

    /// <summary>
    /// One entry's transaction: the skip guard, each command's dedup check and effects, the applied index, the snapshot
    /// point. A batch's commands share it, each with its own outcome: a duplicate (of an earlier entry, or of a command
    /// before it in this one, whose session it already recorded) and an expired session are refused alone, and so is a
    /// command whose content this node's checks refused when the entry was decoded (those checks run before any effect
    /// is applied, so no command is ever half-applied). An exception from the environment itself (a full disk, a
    /// latched environment) is no command's fault and may not happen on every node: it aborts the whole entry, nothing
    /// applied, and the node stops (<see cref="FailStopStateMachine"/>).
    /// </summary>
    private (EntryOutcome Outcome, SnapshotPoint? Moved) Apply(WriteTransaction transaction, long index, long term, EntryCommand[] commands)
    {
        var applied = transaction.CreateTree(ClusterTrees.Applied);
        if (index <= ReadIndex(applied))
            return (Skipped, null);

        var outcomes = new CommandOutcome[commands.Length];
        if (commands.Length > 0)
        {
            var sessions = new SessionTable(transaction, sessionCapacity);
            for (var i = 0; i < commands.Length; i++)
                outcomes[i] = new CommandOutcome(commands[i].Id, ApplyCommand(transaction, sessions, commands[i], index));
        }

        Span<byte> value = stackalloc byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(value, index);
        applied.Put(AppliedKey, value);
        var status = commands.Length == 0 ? ApplyStatus.NoOp : ApplyStatus.Applied;
        return (new EntryOutcome(status, outcomes), SnapshotSchedule.Advance(applied, index, term, snapshotInterval));
    }

    private static ApplyOutcome ApplyCommand(WriteTransaction transaction, in SessionTable sessions, EntryCommand entryCommand, long index)
    {
        if (entryCommand.Command is not { } command)
            return new ApplyOutcome(ApplyStatus.Rejected, 0);
        if (!sessions.Admit(command.Id, out var refusal))
            return refusal;
        var tree = transaction.CreateTree(command.Tree);
        foreach (var operation in command.Operations)
        {
            if (operation.Kind == ClusterOperationKind.Put)
                tree.Put(operation.Key, operation.Value);
            else
                tree.Delete(operation.Key);
        }

        sessions.Record(command.Id, index);
        return new ApplyOutcome(ApplyStatus.Applied, index);
    }

    private EnvironmentSnapshot? Snapshot(SnapshotPoint point) => point.IsNone ? null : new EnvironmentSnapshot(slot, point);

    internal static long ReadAppliedIndex(StorageEnvironment environment)
    {
        using var read = environment.BeginRead();
        return read.TryOpenTree(ClusterTrees.Applied, out var tree) ? ReadIndex(tree) : 0;
    }

    private static long ReadIndex(Tree applied)
        => applied.TryGet(AppliedKey, out var value) ? BinaryPrimitives.ReadInt64LittleEndian(value) : 0;
}
