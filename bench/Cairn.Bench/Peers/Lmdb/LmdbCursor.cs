namespace Cairn.Bench.Peers.Lmdb;

/// <summary>An <c>MDB_cursor*</c>; each step returns spans into the map, with no allocation.</summary>
public sealed unsafe class LmdbCursor : IDisposable
{
    private nint _cursor;

    internal LmdbCursor(nint cursor) => _cursor = cursor;

    /// <summary>Moves by <paramref name="op"/>; false at either end or when nothing matches.</summary>
    public bool TryMove(LmdbCursorOp op, out ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        var cursor = _cursor;
        ObjectDisposedException.ThrowIf(cursor == 0, this);
        MdbVal keyVal, dataVal;
        var rc = LmdbNative.mdb_cursor_get(cursor, &keyVal, &dataVal, op);
        if (rc == 0)
        {
            key = keyVal.AsSpan();
            value = dataVal.AsSpan();
            return true;
        }
        if (rc != LmdbException.NotFound)
            LmdbException.Throw("mdb_cursor_get", rc);
        key = default;
        value = default;
        return false;
    }

    /// <summary>Positions at the first key at or after <paramref name="key"/>.</summary>
    public bool TrySeek(ReadOnlySpan<byte> key, out ReadOnlySpan<byte> foundKey, out ReadOnlySpan<byte> value)
    {
        var cursor = _cursor;
        ObjectDisposedException.ThrowIf(cursor == 0, this);
        int rc;
        MdbVal keyVal, dataVal;
        fixed (byte* k = key)
        {
            keyVal = new MdbVal(k, key.Length);
            rc = LmdbNative.mdb_cursor_get(cursor, &keyVal, &dataVal, LmdbCursorOp.SetRange);
        }
        if (rc == 0)
        {
            foundKey = keyVal.AsSpan();
            value = dataVal.AsSpan();
            return true;
        }
        if (rc != LmdbException.NotFound)
            LmdbException.Throw("mdb_cursor_get", rc);
        foundKey = default;
        value = default;
        return false;
    }

    public void Dispose()
    {
        if (_cursor == 0)
            return;
        LmdbNative.mdb_cursor_close(_cursor);
        _cursor = 0;
    }
}
