using Cairn.Paging;

namespace Cairn.Transactions;

/// <summary>
/// What a tree handle remembers between transactions: the tree's name, and its state as of one
/// transaction id, so transactions on that snapshot skip the root-tree lookup. Entries for
/// different transaction ids never mix: a state is only ever reused for the id it was read at.
/// </summary>
internal sealed class TreeHandleCache(int id, string name)
{
    private Resolved? _resolved;

    /// <summary>Unique among the environment's handles: the key of the tree objects read contexts keep per handle.</summary>
    public int Id { get; } = id;

    public string Name { get; } = name;

    /// <summary>The tree's state in the snapshot of <paramref name="transactionId"/>, if a transaction on it looked it up.</summary>
    public bool TryGet(long transactionId, out TreeState state)
    {
        var resolved = Volatile.Read(ref _resolved);
        if (resolved is not null && resolved.TransactionId == transactionId)
        {
            state = resolved.State;
            return true;
        }
        state = default;
        return false;
    }

    /// <summary>
    /// Keeps the tree's state as of <paramref name="transactionId"/> unless a newer one is kept. One small object
    /// per snapshot that changed the tree (an immutable one, so a reader never sees half a state); racing
    /// callers may replace a newer entry with an older one, which costs a lookup, never a wrong answer.
    /// </summary>
    public void Remember(long transactionId, TreeState state)
    {
        var current = Volatile.Read(ref _resolved);
        if (current is null || current.TransactionId < transactionId)
            Volatile.Write(ref _resolved, new Resolved(transactionId, state));
    }

    private sealed record Resolved(long TransactionId, TreeState State);
}
