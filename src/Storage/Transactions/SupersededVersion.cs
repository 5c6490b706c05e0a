namespace Cairn.Transactions;

/// <summary>
/// A scratch page version a commit replaced. Transaction <see cref="CreatedBy"/> published it and transaction
/// <see cref="ReplacedBy"/> replaced it, so exactly the states of the transactions in between
/// (<c>CreatedBy</c> to <c>ReplacedBy - 1</c>, commits' and flushes' alike) can reach it: a state before
/// <c>CreatedBy</c> never had it, and every state from <c>ReplacedBy</c> on has the replacement (a flush only ever
/// removes versions from a table, and a version it removed is retired by the flush, never by a commit).
/// </summary>
internal readonly record struct SupersededVersion(nint Pointer, int PageCount, long CreatedBy, long ReplacedBy)
{
    /// <summary>Whether a state of one of <paramref name="transactions"/> (sorted ascending) has this version.</summary>
    public bool IsReachedByAny(ReadOnlySpan<long> transactions)
    {
        int at = transactions.BinarySearch(CreatedBy);
        if (at >= 0)
            return true;
        at = ~at; // the first held transaction above CreatedBy, if any
        return at < transactions.Length && transactions[at] < ReplacedBy;
    }
}
