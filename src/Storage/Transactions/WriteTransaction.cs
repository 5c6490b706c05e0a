using Cairn.Trees;

namespace Cairn;

/// <summary>
/// The environment's only write transaction. Changes are visible to it at once and to nobody else
/// until <see cref="Commit"/>; disposing it without committing aborts and leaves no trace.
/// </summary>
public sealed class WriteTransaction : ReadTransaction
{
    private bool _completed;

    internal WriteTransaction(StorageEnvironment environment, Transactions.LowLevelTransaction low)
        : base(environment, new Transactions.ReadContext(low, readerSlot: -1))
    {
    }

    /// <summary>Opens the tree, creating an empty one if there is none by that name.</summary>
    public Tree CreateTree(string name)
    {
        ThrowIfDisposed();
        if (TryOpenTree(name, out var existing))
            return existing;
        var state = BTree.CreateEmpty(Low);
        TreeDirectory.Write(RootTree, name, state);
        return OpenTree(name);
    }

    /// <summary>Deletes a tree and frees all its pages; returns false if there was none.</summary>
    public bool DeleteTree(string name)
    {
        ThrowIfDisposed();
        if (!TryOpenTree(name, out var tree))
            return false;
        tree.Inner.FreeAllPages();
        ForgetTree(name);
        TreeDirectory.Remove(RootTree, name);
        return true;
    }

    /// <summary>Publishes every change atomically: readers that begin after this see all of it, earlier ones none.</summary>
    public void Commit()
    {
        ThrowIfDisposed();
        if (_completed)
            throw new InvalidOperationException("This transaction has already been committed.");
        SaveTreeStates();
        _completed = true;
        Environment.Commit(Low);
        Dispose();
    }

    private void SaveTreeStates()
    {
        foreach (var (name, tree) in OpenTrees)
        {
            if (tree.IsModified)
                TreeDirectory.Write(RootTree, name, tree.State);
        }
        Low.RootTree = RootTree.State;
    }

    private protected override void OnDispose()
    {
        if (!_completed)
        {
            _completed = true;
            Environment.Abort(Low);
        }
    }
}
