using Cairn.Transactions;

namespace Cairn;

/// <summary>
/// A read transaction that allocates nothing: the same snapshot as a <see cref="ReadTransaction"/>, as a
/// struct over pooled parts. Begin it with <see cref="StorageEnvironment.BeginReadSnapshot"/> in a
/// <c>using</c>; it is not tied to a thread (one caller at a time).
/// </summary>
/// <remarks>
/// <para>Its parts go back to a pool at <see cref="Dispose"/> and serve the next snapshot, so this struct,
/// every copy of it, and every <see cref="Tree"/> and <see cref="TreeCursor"/> obtained through it carry the
/// number of the use they belong to: once it has ended they throw <see cref="ObjectDisposedException"/>,
/// never read the snapshot that replaced it. Disposing a copy that has ended does nothing.</para>
/// <para><c>default(ReadSnapshot)</c> was not begun: its members throw <see cref="InvalidOperationException"/>
/// (its <see cref="Dispose"/> does nothing).</para>
/// </remarks>
public readonly struct ReadSnapshot : IReadTransaction
{
    private readonly StorageEnvironment? _environment;
    private readonly ReadContext? _context;
    private readonly long _generation;

    internal ReadSnapshot(StorageEnvironment environment, ReadContext context)
    {
        _environment = environment;
        _context = context;
        _generation = context.Generation;
    }

    /// <summary>The id of the last transaction this snapshot includes.</summary>
    /// <exception cref="ObjectDisposedException">The snapshot has ended.</exception>
    public long TransactionId => Context.Low.State.TransactionId;

    /// <summary>True once the snapshot has been disposed (through this copy or another); false for <c>default</c>.</summary>
    public bool IsDisposed => _context is not null && !_context.IsCurrent(_generation);

    /// <summary>Opens an existing tree; throws <see cref="TreeNotFoundException"/> if there is none by that name.</summary>
    /// <exception cref="ObjectDisposedException">The snapshot has ended.</exception>
    public Tree OpenTree(string name)
        => TryOpenTree(name, out var tree) ? tree : throw new TreeNotFoundException(name);

    /// <summary>Opens a tree if it exists in this snapshot.</summary>
    /// <param name="name">The tree's name (case-sensitive, ordinal).</param>
    /// <param name="tree">The tree, or <c>default</c> when there is none by that name.</param>
    /// <returns>False when the snapshot has no tree by that name.</returns>
    /// <exception cref="ArgumentException"><paramref name="name"/> is null or empty.</exception>
    /// <exception cref="ObjectDisposedException">The snapshot has ended.</exception>
    public bool TryOpenTree(string name, out Tree tree)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        return ReadAccess.TryOpenTree(Context, _generation, name, _environment!.DataFilePath, out tree);
    }

    /// <summary>
    /// Opens the tree <paramref name="handle"/> names (see <see cref="TreeHandle"/>); throws
    /// <see cref="TreeNotFoundException"/> if this snapshot has no tree by that name.
    /// </summary>
    /// <exception cref="ArgumentException">The handle belongs to another environment.</exception>
    /// <exception cref="ObjectDisposedException">The snapshot has ended.</exception>
    public Tree OpenTree(TreeHandle handle)
        => TryOpenTree(handle, out var tree) ? tree : throw new TreeNotFoundException(handle.Name);

    /// <summary>Opens the tree <paramref name="handle"/> names if this snapshot has it.</summary>
    /// <returns>False when the snapshot has no tree by the handle's name.</returns>
    /// <exception cref="ArgumentException">The handle belongs to another environment.</exception>
    /// <exception cref="ObjectDisposedException">The snapshot has ended.</exception>
    public bool TryOpenTree(TreeHandle handle, out Tree tree)
        => ReadAccess.TryOpenTree(Context, _generation, _environment!, handle, out tree);

    /// <summary>The names of every tree, in order.</summary>
    /// <exception cref="ObjectDisposedException">The snapshot has ended.</exception>
    public IReadOnlyList<string> GetTreeNames() => Context.GetTreeNames();

    /// <summary>
    /// Ends the snapshot: old page versions it pinned can be reclaimed, and its parts serve the next one. Spans,
    /// trees and cursors obtained through it are invalid afterwards. Calling it again, on this copy or another,
    /// does nothing.
    /// </summary>
    public void Dispose()
    {
        if (_context is not null && _context.TryEnd(_generation))
            _environment!.EndRead(_context);
    }

    private ReadContext Context
    {
        get
        {
            if (_context is null)
                throw new InvalidOperationException("This ReadSnapshot was not begun: use StorageEnvironment.BeginReadSnapshot().");
            if (!_context.IsCurrent(_generation))
                throw ReadAccess.Ended();
            return _context;
        }
    }
}
