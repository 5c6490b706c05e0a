namespace Cairn;

/// <summary>
/// What every read of one snapshot offers: its transaction id, its trees, and its end. Implemented by
/// <see cref="ReadTransaction"/> (and so <see cref="WriteTransaction"/>, which reads its own writes) and by the
/// <see cref="ReadSnapshot"/> struct, so code that only reads can take either.
/// </summary>
/// <remarks>
/// <see cref="ReadSnapshot"/> is a struct so that it allocates nothing; passed as <c>IReadTransaction</c> it is
/// boxed (one allocation). Code that must allocate nothing takes it through a generic parameter constrained to
/// this interface (<c>static int Count&lt;TRead&gt;(TRead read) where TRead : IReadTransaction</c>), which the JIT
/// specializes for the struct without boxing.
/// </remarks>
public interface IReadTransaction : IDisposable
{
    /// <summary>The id of the last transaction this snapshot includes.</summary>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    long TransactionId { get; }

    /// <summary>True once the transaction has ended; it can then no longer be used.</summary>
    bool IsDisposed { get; }

    /// <summary>Opens an existing tree; throws <see cref="TreeNotFoundException"/> if there is none by that name.</summary>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    Tree OpenTree(string name);

    /// <summary>Opens a tree if it exists in this snapshot.</summary>
    /// <param name="name">The tree's name (case-sensitive, ordinal).</param>
    /// <param name="tree">The tree, or <c>default</c> when there is none by that name.</param>
    /// <returns>False when the snapshot has no tree by that name.</returns>
    /// <exception cref="ArgumentException"><paramref name="name"/> is null or empty.</exception>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    bool TryOpenTree(string name, out Tree tree);

    /// <summary>
    /// Opens the tree <paramref name="handle"/> names (see <see cref="TreeHandle"/>); throws
    /// <see cref="TreeNotFoundException"/> if this snapshot has no tree by that name.
    /// </summary>
    /// <exception cref="ArgumentException">The handle belongs to another environment.</exception>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    Tree OpenTree(TreeHandle handle);

    /// <summary>Opens the tree <paramref name="handle"/> names if this snapshot has it.</summary>
    /// <returns>False when the snapshot has no tree by the handle's name.</returns>
    /// <exception cref="ArgumentException">The handle belongs to another environment.</exception>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    bool TryOpenTree(TreeHandle handle, out Tree tree);

    /// <summary>The names of every tree, in order.</summary>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    IReadOnlyList<string> GetTreeNames();
}
