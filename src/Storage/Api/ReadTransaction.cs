using Cairn.Trees;

namespace Cairn;

/// <summary>
/// A snapshot of the environment as of the last commit before it began. Nothing committed later is
/// visible, and nothing it reads changes until it is disposed. It is not tied to a thread: it may
/// be used across <c>await</c>s (by one caller at a time).
/// </summary>
public class ReadTransaction : IDisposable
{
    private readonly Transactions.ReadContext _context;
    private bool _disposed;

    internal ReadTransaction(StorageEnvironment environment, Transactions.ReadContext context)
    {
        Environment = environment;
        _context = context;
    }

    internal StorageEnvironment Environment { get; }

    internal Transactions.LowLevelTransaction Low => _context.Low;

    /// <summary>The id of the last transaction this snapshot includes.</summary>
    public long TransactionId => Low.State.TransactionId;

    /// <summary>True once the transaction has been disposed (or, for a write transaction, committed); it can then no longer be used.</summary>
    public bool IsDisposed => _disposed;

    internal BTree RootTree => _context.Root ??= new BTree(Low, Low.RootTree);

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
        if (ReferenceEquals(name, _context.LastTreeName))
        {
            tree = new Tree(this, _context.LastTree!, name);
            return true;
        }
        if (!_context.Trees.TryGetValue(name, out var btree))
        {
            if (!TreeDirectory.TryRead(RootTree, name, out var state, Environment.DataFilePath))
            {
                tree = default;
                return false;
            }
            btree = new BTree(Low, state);
            _context.Trees.Add(name, btree);
        }
        _context.LastTreeName = name;
        _context.LastTree = btree;
        tree = new Tree(this, btree, name);
        return true;
    }

    /// <summary>The names of every tree, in order.</summary>
    public IReadOnlyList<string> GetTreeNames()
    {
        ThrowIfDisposed();
        var names = new List<string>();
        var cursor = new BTreeCursor(RootTree);
        for (bool more = cursor.First(); more; more = cursor.MoveNext())
            names.Add(TreeDirectory.DecodeName(cursor.Key));
        return names;
    }

    internal Dictionary<string, BTree> OpenTrees => _context.Trees;

    internal void ForgetTree(string name)
    {
        _context.Trees.Remove(name);
        _context.LastTreeName = null;
        _context.LastTree = null;
    }

    internal void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(_disposed, this);

    /// <summary>
    /// Ends the transaction: a read transaction releases its snapshot (old page versions it pinned can be reclaimed);
    /// a write transaction that was not committed is rolled back and leaves no trace. Spans obtained through it are
    /// invalid afterwards. Calling it again does nothing.
    /// </summary>
    /// <exception cref="InvalidOperationException">The transaction is the merger's (inside a <c>WriteAsync</c> operation), which only the merger ends.</exception>
    public void Dispose()
    {
        if (!CanDispose)
            throw new InvalidOperationException("This transaction belongs to the transaction merger, which ends it: return from the operation instead.");
        if (_disposed)
            return;
        _disposed = true;
        OnDispose();
    }

    private protected virtual bool CanDispose => true;

    private protected virtual void OnDispose() => Environment.EndRead(_context);
}
