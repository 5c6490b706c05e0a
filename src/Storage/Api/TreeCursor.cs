namespace Cairn;

/// <summary>
/// An ordered cursor over one tree. Stepping allocates nothing. It stays correct while its own
/// write transaction inserts and deletes under it: after a change it repositions by its current key.
/// An optional prefix bounds stepping to keys that start with it.
/// </summary>
public sealed class TreeCursor : IDisposable
{
    private readonly Transactions.ReadContext _context;
    private readonly long _generation;
    private readonly Trees.BTreeCursor _cursor;
    private byte[]? _prefix;
    private bool _positioned;

    internal TreeCursor(Transactions.ReadContext context, long generation, Trees.BTreeCursor cursor)
    {
        _context = context;
        _generation = generation;
        _cursor = cursor;
    }

    /// <summary>True when the cursor is on an entry: the last seek or move found one (within the prefix, if any).</summary>
    public bool IsPositioned => _positioned;

    /// <summary>The current entry's key; it points into the page and is valid until the next move or change to the tree.</summary>
    /// <exception cref="InvalidOperationException">The cursor is not on an entry (<see cref="IsPositioned"/> is false).</exception>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    public ReadOnlySpan<byte> Key
    {
        get
        {
            EnsurePositioned();
            return _cursor.Key;
        }
    }

    /// <summary>The current entry's value; it points into the page and is valid until the next move or change to the tree.</summary>
    /// <exception cref="InvalidOperationException">The cursor is not on an entry (<see cref="IsPositioned"/> is false).</exception>
    /// <exception cref="ObjectDisposedException">The transaction has ended.</exception>
    public ReadOnlySpan<byte> Value
    {
        get
        {
            EnsurePositioned();
            return _cursor.Value;
        }
    }

    /// <summary>Positions at the first key ≥ <paramref name="key"/>.</summary>
    public bool Seek(ReadOnlySpan<byte> key)
    {
        ThrowIfEnded();
        _prefix = null;
        return _positioned = _cursor.Seek(key);
    }

    /// <summary>Positions at the last key ≤ <paramref name="key"/> (the start of a reverse range).</summary>
    public bool SeekAtOrBefore(ReadOnlySpan<byte> key)
    {
        ThrowIfEnded();
        _prefix = null;
        if (_cursor.Seek(key))
            return _positioned = _cursor.Key.SequenceEqual(key) || _cursor.MovePrevious();
        return _positioned = _cursor.Last();
    }

    /// <summary>Positions at the smallest key; false when the tree is empty. Clears any prefix.</summary>
    public bool SeekFirst()
    {
        ThrowIfEnded();
        _prefix = null;
        return _positioned = _cursor.First();
    }

    /// <summary>Positions at the largest key; false when the tree is empty. Clears any prefix.</summary>
    public bool SeekLast()
    {
        ThrowIfEnded();
        _prefix = null;
        return _positioned = _cursor.Last();
    }

    /// <summary>Positions at the first key starting with <paramref name="prefix"/>; later steps stay within the prefix.</summary>
    public bool SeekPrefix(ReadOnlySpan<byte> prefix)
    {
        ThrowIfEnded();
        _prefix = prefix.ToArray();
        return _positioned = _cursor.Seek(prefix) && _cursor.Key.StartsWith(prefix);
    }

    /// <summary>Positions at the last key starting with <paramref name="prefix"/>, for reverse prefix scans.</summary>
    public bool SeekPrefixLast(ReadOnlySpan<byte> prefix)
    {
        ThrowIfEnded();
        _prefix = prefix.ToArray();
        bool found = TryIncrement(prefix, out var after) ? (_cursor.Seek(after) ? _cursor.MovePrevious() : _cursor.Last()) : _cursor.Last();
        return _positioned = found && _cursor.Key.StartsWith(prefix);
    }

    /// <summary>Steps to the next key in ascending (unsigned byte-wise) order; false at the end of the tree or of the prefix, after which the cursor is not positioned.</summary>
    public bool MoveNext()
    {
        ThrowIfEnded();
        if (!_positioned)
            return false;
        return _positioned = _cursor.MoveNext() && WithinPrefix();
    }

    /// <summary>Steps to the previous key; false at the start of the tree or of the prefix, after which the cursor is not positioned.</summary>
    public bool MovePrevious()
    {
        ThrowIfEnded();
        if (!_positioned)
            return false;
        return _positioned = _cursor.MovePrevious() && WithinPrefix();
    }

    /// <summary>Leaves the cursor unpositioned. A cursor holds no resources of its own; its transaction's end also ends it.</summary>
    public void Dispose() => _positioned = false;

    private void ThrowIfEnded()
    {
        if (!_context.IsCurrent(_generation))
            throw ReadAccess.Ended();
    }

    private bool WithinPrefix() => _prefix is null || _cursor.Key.StartsWith(_prefix);

    private void EnsurePositioned()
    {
        ThrowIfEnded();
        if (!_positioned)
            throw new InvalidOperationException("The cursor is not positioned on an entry.");
    }

    /// <summary>The smallest key greater than every key starting with <paramref name="prefix"/>; false when there is none (all 0xFF).</summary>
    private static bool TryIncrement(ReadOnlySpan<byte> prefix, out byte[] next)
    {
        next = prefix.ToArray();
        for (int i = next.Length - 1; i >= 0; i--)
        {
            if (next[i] != 0xFF)
            {
                next[i]++;
                Array.Resize(ref next, i + 1);
                return true;
            }
        }
        return false;
    }
}
