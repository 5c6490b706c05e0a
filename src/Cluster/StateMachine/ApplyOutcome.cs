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

    /// <summary>
    /// A batch entry's command that this node's checks refuse (<see cref="Commands.EntryCommand.Refusal"/>): nothing of
    /// it applied and its session is not touched, the entry's other commands applied. Every node of this version
    /// refuses it alike; a leader's own commands pass the same checks when made, so its writers never see this.
    /// </summary>
    Rejected,

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
/// Travels with a leader's own entry as DotNext's log entry context, so the writers learn what applying it did to
/// each of their commands (<see cref="Expected"/>, in the entry's order). Only the node that appended the entry has
/// it; a restart or another node applies without it.
/// </summary>
internal sealed class ApplyWaiter(IReadOnlyList<OperationId> expected)
    : TaskCompletionSource<ApplyOutcome[]>(TaskCreationOptions.RunContinuationsAsynchronously)
{
    /// <summary>The ids of the commands the writers appended; an entry with other commands applied at its index is not theirs.</summary>
    public IReadOnlyList<OperationId> Expected { get; } = expected;

    /// <summary>Tells the writers what the apply did: their outcomes, or <see cref="ApplyStatus.Replaced"/> if another entry took its place.</summary>
    public void Complete(EntryOutcome applied)
    {
        var outcomes = new ApplyOutcome[Expected.Count];
        var theirs = applied.Commands.Count == Expected.Count;
        for (var i = 0; theirs && i < outcomes.Length; i++)
            theirs = applied.Commands[i].Id == Expected[i];
        for (var i = 0; i < outcomes.Length; i++)
        {
            outcomes[i] = theirs ? applied.Commands[i].Outcome
                : applied.Status == ApplyStatus.AlreadyApplied ? new ApplyOutcome(ApplyStatus.AlreadyApplied, 0)
                : new ApplyOutcome(ApplyStatus.Replaced, 0);
        }

        TrySetResult(outcomes);
    }
}

/// <param name="Id">The command's id.</param>
/// <param name="Outcome">What applying it did.</param>
internal readonly record struct CommandOutcome(OperationId Id, ApplyOutcome Outcome);

/// <summary>What applying one log entry did: to the entry, and to each of its commands in order.</summary>
/// <param name="Status"><see cref="ApplyStatus.Applied"/> for an entry with commands (each has its own outcome),
/// <see cref="ApplyStatus.NoOp"/> for one without, <see cref="ApplyStatus.AlreadyApplied"/> for one skipped.</param>
/// <param name="Commands">Per command, in the entry's order (empty for a no-op or a skipped entry).</param>
internal sealed record EntryOutcome(ApplyStatus Status, IReadOnlyList<CommandOutcome> Commands);
