using Cairn.Trees;

namespace Cairn;

/// <summary>
/// A snapshot of the environment as of the last commit before it began. Nothing committed later is
/// visible, and nothing it reads changes until it is disposed. It is not tied to a thread: it may
/// be used across <c>await</c>s (by one caller at a time).
/// </summary>
/// <remarks>
/// Each <see cref="StorageEnvironment.BeginRead"/> allocates this small object (the rest of a read transaction
/// is pooled); <see cref="StorageEnvironment.BeginReadSnapshot"/> is the same transaction as a struct, for
/// code that must allocate nothing.
/// </remarks>
public class ReadTransaction : IReadTransaction
{
    private readonly Transactions.ReadContext _context;
    // The use of the (pooled) context this transaction is: trees and cursors it hands out carry it too. Not readonly:
    // the merger's wrapper is moved to each new use of its slot's context (Rebind).
    private long _generation;

    internal ReadTransaction(IReadHost host, Transactions.ReadContext context)
    {
        Host = host;
        _context = context;
        _generation = context.Generation;
    }

    /// <summary>The environment whose snapshot this is (a writable or a read-only one).</summary>
    internal IReadHost Host { get; }

    internal Transactions.LowLevelTransaction Low => _context.Low;

    /// <summary>
    /// The id of the last transaction this snapshot includes. A write transaction reads the state before it: it commits
    /// as <see cref="WriteTransaction.CommitTransactionId"/> (this + 1), which its <c>Commit</c> returns.
    /// </summary>
    public long TransactionId => Low.State.TransactionId;

    /// <summary>True once the transaction has been disposed (or, for a write transaction, committed); it can then no longer be used.</summary>
    public bool IsDisposed => !IsUsable;

    internal BTree RootTree => _context.RootTree;

    /// <summary>Opens an existing tree; throws <see cref="TreeNotFoundException"/> if there is none by that name.</summary>
    public Tree OpenTree(string name)
        => TryOpenTree(name, out var tree) ? tree : throw new TreeNotFoundException(name);

    /// <summary>Opens a tree if it exists in this snapshot.</summary>
    /// <param name="name">The tree's name (case-sensitive, ordinal).</param>
    /// <param name="tree">The tree, or <c>default</c> when there is none by that name.</param>
    /// <returns>False when the snapshot has no tree by that name.</returns>
    /// <exception cref="ArgumentException"><paramref name="name"/> is null or empty.</exception>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    public bool TryOpenTree(string name, out Tree tree)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        ThrowIfDisposed();
        return ReadAccess.TryOpenTree(_context, _generation, name, Host.DataFilePath, out tree);
    }

    /// <summary>
    /// Opens the tree <paramref name="handle"/> names, skipping the lookup by name when a transaction on the
    /// same snapshot has looked it up through the handle already. Throws <see cref="TreeNotFoundException"/>
    /// if this snapshot has no tree by that name (it was deleted, or not yet created).
    /// </summary>
    /// <exception cref="ArgumentException">The handle belongs to another environment.</exception>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    public Tree OpenTree(TreeHandle handle)
        => TryOpenTree(handle, out var tree) ? tree : throw new TreeNotFoundException(handle.Name);

    /// <summary>Opens the tree <paramref name="handle"/> names if this snapshot has it (see <see cref="OpenTree(TreeHandle)"/>).</summary>
    /// <returns>False when the snapshot has no tree by the handle's name.</returns>
    /// <exception cref="ArgumentException">The handle belongs to another environment.</exception>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    public bool TryOpenTree(TreeHandle handle, out Tree tree)
    {
        ThrowIfDisposed();
        return ReadAccess.TryOpenTree(_context, _generation, Host, handle, out tree);
    }

    /// <summary>The names of every tree, in order.</summary>
    public IReadOnlyList<string> GetTreeNames()
    {
        ThrowIfDisposed();
        return _context.GetTreeNames();
    }

    internal Dictionary<string, BTree> OpenTrees => _context.Trees;

    internal void ForgetTree(string name) => _context.ForgetTree(name);

    internal void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(!IsUsable, this);

    private bool IsUsable => _context.IsCurrent(_generation) && InUse;

    /// <summary>False where the transaction's own use is not under way though its context's is (a merged transaction outside its operation).</summary>
    private protected virtual bool InUse => true;

    /// <summary>Makes this object the context's current use (the merger's wrapper, kept from one transaction to the next).</summary>
    private protected void Rebind() => _generation = _context.Generation;

    /// <summary>
    /// Ends the transaction: a read transaction releases its snapshot (old page versions it pinned can be reclaimed);
    /// a write transaction that was not committed is rolled back and leaves no trace. Spans, trees and cursors
    /// obtained through it are invalid afterwards (they throw <see cref="ObjectDisposedException"/>). Calling it
    /// again does nothing.
    /// </summary>
    /// <exception cref="InvalidOperationException">The transaction is the merger's (inside a <c>WriteAsync</c> operation), which only the merger ends.</exception>
    public void Dispose()
    {
        if (!CanDispose)
            throw new InvalidOperationException("This transaction belongs to the transaction merger, which ends it: return from the operation instead.");
        if (!_context.TryEnd(_generation))
            return;
        OnDispose();
    }

    /// <summary>The merger is done with its transaction: trees and cursors an operation kept from it now throw.</summary>
    internal void Expire() => _context.TryEnd(_generation);

    private protected virtual bool CanDispose => true;

    private protected virtual void OnDispose() => Host.EndRead(_context);
}
