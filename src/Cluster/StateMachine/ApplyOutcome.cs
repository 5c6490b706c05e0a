namespace Cairn.Cluster.StateMachine;

/// <summary>What applying one log entry did.</summary>
internal enum ApplyStatus
{
    /// <summary>The command's operations were applied at this entry.</summary>
    Applied,

    /// <summary>The command's id was applied before (a retry): nothing changed but the applied index.</summary>
    Duplicate,

    /// <summary>The client's session is not in the table and this is not its first write: refused, nothing changed.</summary>
    SessionExpired,

    /// <summary>An entry with no command (the leader's no-op at the start of a term, a configuration entry).</summary>
    NoOp,

    /// <summary>The environment already holds this entry's effects (a replay after a restart): skipped.</summary>
    AlreadyApplied,

    /// <summary>
    /// Told only to a waiting writer: the entry applied at its index is not its command (a new leader's entry took
    /// the place of a deposed leader's), so its own write is of unknown outcome.
    /// </summary>
    Replaced,
}

/// <param name="Status">What happened.</param>
/// <param name="Index">The log index the command's operations were applied at (for a duplicate, the original's; 0 if unknown).</param>
internal readonly record struct ApplyOutcome(ApplyStatus Status, long Index);

/// <summary>
/// Travels with a leader's own entry as DotNext's log entry context, so the writer learns what applying it did.
/// Only the node that appended the entry has it; a restart or another node applies without it.
/// </summary>
internal sealed class ApplyWaiter(OperationId expected) : TaskCompletionSource<ApplyOutcome>(TaskCreationOptions.RunContinuationsAsynchronously)
{
    /// <summary>The id of the command the writer appended; any other command applied at its index is not its own.</summary>
    public OperationId Expected { get; } = expected;
}
