using Cairn.Transactions;

namespace Cairn;

/// <summary>
/// A tree by name that outlives transactions, as an LMDB database handle does: get it once from
/// <see cref="StorageEnvironment.GetTreeHandle"/> and open the tree with it in every transaction
/// (<see cref="ReadTransaction.OpenTree(TreeHandle)"/>, <see cref="ReadSnapshot.OpenTree(TreeHandle)"/>).
/// </summary>
/// <remarks>
/// <para>Opening by name looks the tree up in the root tree once per transaction snapshot; a handle remembers
/// the tree's state as of the last snapshot a transaction looked it up in, so every later transaction on that
/// snapshot skips the lookup, and a pooled read transaction also reuses its tree object (no allocation).</para>
/// <para>It names a tree, it does not pin one: in a snapshot where the tree does not exist (deleted, or not yet
/// created) opening it throws <see cref="TreeNotFoundException"/>, and once a tree of that name is created
/// again the handle opens the new one. What it remembers is only ever used for the snapshot it was read in,
/// so a handle never reads a deleted tree's pages. Thread-safe; one object per name and environment.</para>
/// </remarks>
public sealed class TreeHandle
{
    internal TreeHandle(StorageEnvironment environment, int id, string name)
    {
        Environment = environment;
        Cache = new TreeHandleCache(id, name);
    }

    /// <summary>The tree's name.</summary>
    public string Name => Cache.Name;

    internal StorageEnvironment Environment { get; }

    internal TreeHandleCache Cache { get; }

    /// <summary>The tree's name.</summary>
    public override string ToString() => Name;
}
