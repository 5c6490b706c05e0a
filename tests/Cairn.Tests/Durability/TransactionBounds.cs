namespace Cairn.Tests.Durability;

/// <summary>
/// What a crash run knows of one database between kills: every transaction up to <paramref name="HighestAcknowledged"/>
/// must be present, none past <paramref name="HighestPossible"/> may be.
/// </summary>
internal readonly record struct TransactionBounds(long HighestAcknowledged, long HighestPossible)
{
    /// <summary>Null if a writer that found transaction <paramref name="start"/> on opening fits these bounds, else what is wrong.</summary>
    public string? ProblemWithStart(long start)
        => start < HighestAcknowledged
            ? $"acknowledged transactions lost: transactions up to {HighestAcknowledged} were acknowledged, but the next writer reopened the database at {start}"
            : start > HighestPossible
                ? $"the writer reopened the database at {start}, but no transaction past {HighestPossible} was ever started"
                : null;

    /// <summary>
    /// The bounds after a writer that acknowledged up to <paramref name="highestReported"/> (its start if nothing) was
    /// killed: whatever it acknowledged is owed (an acknowledged transaction means every earlier one is durable too,
    /// since one environment writes its entries one after another). Past it, only what was in flight may be there:
    /// at most one transaction per caller (<paramref name="callers"/>).
    /// </summary>
    public TransactionBounds AfterWriter(long highestReported, int callers)
        => new(Math.Max(HighestAcknowledged, highestReported), highestReported + callers);
}
