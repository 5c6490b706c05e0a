using Cairn.Transactions;

namespace Cairn.Flushing;

/// <summary>
/// Which part of a state one flush writes: the runs starting in [<see cref="FromPage"/>, <see cref="BelowPage"/>), with
/// the file grown to at least <see cref="HighWaterMark"/> (the header synced after it names that many pages) and
/// <see cref="UpTo"/> the transaction the flush makes the file current for (for the message of a full disk).
/// </summary>
internal readonly record struct FlushStep(long FromPage, long BelowPage, long HighWaterMark, long UpTo)
{
    /// <summary>The whole state.</summary>
    public static FlushStep Whole(EnvironmentState state) => new(0, long.MaxValue, state.NextPageNumber, state.TransactionId);
}
