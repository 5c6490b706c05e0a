namespace Cairn;

/// <summary>
/// A named tree as one transaction sees it. A small handle: opening it again in the same
/// transaction returns the same tree. Once the transaction has ended every member throws
/// <see cref="ObjectDisposedException"/> (also when the transaction's pooled parts already serve another). Spans it returns point into the environment's pages and stay
/// valid until the transaction ends or (in a write transaction) the tree is next modified; copy
/// them out (<see cref="TryGet(ReadOnlySpan{byte}, Span{byte}, out int)"/>) to keep them longer.
/// </summary>
/// <remarks>
/// A struct so that opening a tree allocates nothing (a pooled read transaction hands out the same one). A tree
/// comes only from <see cref="ReadTransaction.OpenTree(string)"/>, <see cref="ReadSnapshot.OpenTree(string)"/> or
/// <see cref="WriteTransaction.CreateTree"/> (or their <c>TryOpenTree</c> forms): every member of
/// <c>default(Tree)</c> throws <see cref="InvalidOperationException"/> naming them.
/// </remarks>
public readonly struct Tree
{
    private readonly Transactions.ReadContext? _context;
    private readonly long _generation;
    private readonly string? _name;

    internal Tree(Transactions.ReadContext context, long generation, Trees.BTree inner, string name)
    {
        _context = context;
        _generation = generation;
        Inner = inner;
        _name = name;
    }

    /// <summary>The tree's name, as given to <see cref="ReadTransaction.OpenTree(string)"/> or <see cref="WriteTransaction.CreateTree"/>.</summary>
    /// <exception cref="InvalidOperationException">This is <c>default(Tree)</c>, not a tree a transaction opened.</exception>
    public string Name => _name ?? throw NotOpened();

    internal Trees.BTree Inner { get; }

    /// <summary>The number of entries.</summary>
    public long Count
    {
        get
        {
            Check();
            return Inner.State.EntryCount;
        }
    }

    /// <summary>Looks a key up; the value points into the page and allocates nothing.</summary>
    public bool TryGet(ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        Check();
        return Inner.TryGet(key, out value);
    }

    /// <summary>Looks a key up and copies the value out; <paramref name="written"/> is the value's length (which may exceed the destination, then nothing is copied and false is returned).</summary>
    public bool TryGet(ReadOnlySpan<byte> key, Span<byte> destination, out int written)
    {
        Check();
        if (!Inner.TryGet(key, out var value))
        {
            written = 0;
            return false;
        }
        written = value.Length;
        return value.TryCopyTo(destination);
    }

    /// <summary>The value as a new array, or null if the key is absent.</summary>
    public byte[]? Get(ReadOnlySpan<byte> key)
    {
        Check();
        return Inner.TryGet(key, out var value) ? value.ToArray() : null;
    }

    /// <summary>Inserts or replaces. Throws <see cref="ReadOnlyTransactionException"/> in a read transaction.</summary>
    public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        CheckWritable();
        Inner.Put(key, value);
    }

    /// <summary>
    /// Adds an entry whose key is above every key in the tree, at the tree's right edge with no search: the way
    /// to bulk-load keys in strictly increasing (unsigned byte) order, into an empty tree or after its last key.
    /// Pages fill completely. A key not above the last one (out of order, or equal) throws
    /// <see cref="KeyOrderException"/> before anything changes; the transaction stays usable, with every earlier
    /// append in it, and commits or is disposed as usual. Throws <see cref="ReadOnlyTransactionException"/> in a
    /// read transaction.
    /// </summary>
    /// <exception cref="KeyOrderException">The key is not above the tree's last key.</exception>
    public void Append(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        CheckWritable();
        Inner.Append(key, value, _name!);
    }

    /// <summary>Removes a key; returns false if it was absent.</summary>
    public bool Delete(ReadOnlySpan<byte> key)
    {
        CheckWritable();
        return Inner.Delete(key);
    }

    /// <summary>A cursor over this tree in key order (unsigned byte order).</summary>
    public TreeCursor CreateCursor()
    {
        Check();
        return new TreeCursor(_context!, _generation, new Trees.BTreeCursor(Inner));
    }

    private void Check()
    {
        if (_context is null)
            throw NotOpened();
        if (!_context.IsCurrent(_generation))
            throw ReadAccess.Ended();
    }

    private static InvalidOperationException NotOpened()
        => new("This Tree is default(Tree), not a tree a transaction opened: get one from ReadTransaction.OpenTree, ReadSnapshot.OpenTree or WriteTransaction.CreateTree.");

    private void CheckWritable()
    {
        Check();
        if (!_context!.Low.IsWritable)
            throw new ReadOnlyTransactionException();
    }
}
