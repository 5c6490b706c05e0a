namespace Cairn.Stress.Checking;

/// <summary>
/// What a campaign knows of one database between kills: every transaction up to <paramref name="HighestAcknowledged"/>
/// must be present, none past <paramref name="HighestPossible"/> may be. Those in between were in flight when the
/// child died: each may be there or not, but only wholly, and only as a prefix (transactions are numbered in
/// commit order, and a commit is durable only after every earlier one).
/// </summary>
internal readonly record struct TransactionBounds(long HighestAcknowledged, long HighestPossible)
{
    /// <summary>Null if a child that found transaction <paramref name="start"/> on opening fits these bounds, else what is wrong.</summary>
    public string? ProblemWithStart(long start)
        => start < HighestAcknowledged
            ? $"acknowledged transactions lost: transactions up to {HighestAcknowledged} were acknowledged, but the next child reopened the database at {start}"
            : start > HighestPossible
                ? $"the child reopened the database at {start}, but no transaction past {HighestPossible} was ever started"
                : null;

    /// <summary>
    /// The bounds after a child that acknowledged up to <paramref name="highestReported"/> (its start if nothing) was
    /// killed: whatever it acknowledged is owed (an acknowledged transaction means every earlier one is durable too,
    /// since one environment writes its entries one after another). Past it, only what was in flight may be there:
    /// at most one transaction per caller (<paramref name="callers"/>).
    /// </summary>
    public TransactionBounds AfterChild(long highestReported, int callers)
        => new(Math.Max(HighestAcknowledged, highestReported), highestReported + callers);

    public override string ToString() => $"acknowledged up to {HighestAcknowledged}, possible up to {HighestPossible}";
}
