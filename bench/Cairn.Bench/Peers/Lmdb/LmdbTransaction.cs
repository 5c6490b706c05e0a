namespace Cairn.Bench.Peers.Lmdb;

/// <summary>
/// An <c>MDB_txn*</c>. Spans it hands out point into the map and are valid until the transaction
/// ends, is reset, or (for a write transaction) writes again. A read transaction is meant to be
/// kept and cycled with <see cref="Reset"/>/<see cref="Renew"/>, which keeps its reader slot and
/// costs no allocation and no lock; beginning a fresh one takes the reader-table mutex.
/// </summary>
/// <remarks>Not thread-safe; with <see cref="LmdbEnvironmentFlags.NoTls"/> it may move between threads.</remarks>
public sealed unsafe class LmdbTransaction : IDisposable
{
    private readonly SafeLmdbEnvironmentHandle _env;
    private nint _txn;

    private LmdbTransaction(SafeLmdbEnvironmentHandle env, nint txn, bool readOnly)
    {
        _env = env;
        _txn = txn;
        IsReadOnly = readOnly;
    }

    public bool IsReadOnly { get; }

    internal static LmdbTransaction Begin(SafeLmdbEnvironmentHandle env, LmdbTransactionFlags flags)
    {
        var added = false;
        env.DangerousAddRef(ref added);
        try
        {
            LmdbException.Check(LmdbNative.mdb_txn_begin(env.DangerousGetHandle(), 0, (uint)flags, out var txn), "mdb_txn_begin");
            return new LmdbTransaction(env, txn, (flags & LmdbTransactionFlags.ReadOnly) != 0);
        }
        catch
        {
            env.DangerousRelease();
            throw;
        }
    }

    /// <summary>Finds <paramref name="key"/>; false when absent.</summary>
    public bool TryGet(uint dbi, ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        var txn = Live();
        int rc;
        MdbVal data;
        fixed (byte* k = key)
        {
            var keyVal = new MdbVal(k, key.Length);
            rc = LmdbNative.mdb_get(txn, dbi, &keyVal, &data);
        }
        if (rc == 0)
        {
            value = data.AsSpan();
            return true;
        }
        if (rc != LmdbException.NotFound)
            LmdbException.Throw("mdb_get", rc);
        value = default;
        return false;
    }

    public void Put(uint dbi, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, LmdbPutFlags flags = LmdbPutFlags.None)
    {
        var txn = Live();
        int rc;
        fixed (byte* k = key)
        fixed (byte* v = value)
        {
            var keyVal = new MdbVal(k, key.Length);
            var dataVal = new MdbVal(v, value.Length);
            rc = LmdbNative.mdb_put(txn, dbi, &keyVal, &dataVal, (uint)flags);
        }
        LmdbException.Check(rc, "mdb_put");
    }

    /// <summary>Deletes <paramref name="key"/>; false when it was absent.</summary>
    public bool Delete(uint dbi, ReadOnlySpan<byte> key)
    {
        var txn = Live();
        int rc;
        fixed (byte* k = key)
        {
            var keyVal = new MdbVal(k, key.Length);
            rc = LmdbNative.mdb_del(txn, dbi, &keyVal, null);
        }
        if (rc == LmdbException.NotFound)
            return false;
        LmdbException.Check(rc, "mdb_del");
        return true;
    }

    /// <summary>Opens a database handle; <paramref name="name"/> null is the main database.</summary>
    public uint OpenDatabase(string? name, LmdbDatabaseFlags flags)
    {
        var txn = Live();
        uint dbi;
        int rc;
        if (name is null)
        {
            rc = LmdbNative.mdb_dbi_open(txn, null, (uint)flags, out dbi);
        }
        else
        {
            var bytes = System.Text.Encoding.UTF8.GetBytes(name + "\0");
            fixed (byte* n = bytes)
                rc = LmdbNative.mdb_dbi_open(txn, n, (uint)flags, out dbi);
        }
        LmdbException.Check(rc, "mdb_dbi_open");
        return dbi;
    }

    /// <summary>Opens a cursor; dispose it before this transaction ends (read-only cursors are not freed with it).</summary>
    public LmdbCursor OpenCursor(uint dbi)
    {
        LmdbException.Check(LmdbNative.mdb_cursor_open(Live(), dbi, out var cursor), "mdb_cursor_open");
        return new LmdbCursor(cursor);
    }

    /// <summary>Commits; the transaction is gone afterwards whether or not the commit succeeded.</summary>
    public void Commit()
    {
        var rc = LmdbNative.mdb_txn_commit(Live());
        Release();
        LmdbException.Check(rc, "mdb_txn_commit");
    }

    /// <summary>Releases a read transaction's snapshot but keeps the object and its reader slot for <see cref="Renew"/>.</summary>
    public void Reset() => LmdbNative.mdb_txn_reset(Live());

    /// <summary>Takes a fresh snapshot for a transaction that was <see cref="Reset"/>.</summary>
    public void Renew() => LmdbException.Check(LmdbNative.mdb_txn_renew(Live()), "mdb_txn_renew");

    /// <summary>Aborts (a write) or ends (a read) the transaction; a no-op after commit.</summary>
    public void Dispose()
    {
        if (_txn == 0)
            return;
        LmdbNative.mdb_txn_abort(_txn);
        Release();
    }

    // One compare per call keeps a use after Commit/Dispose from handing LMDB a freed pointer.
    private nint Live()
    {
        var txn = _txn;
        ObjectDisposedException.ThrowIf(txn == 0, this);
        return txn;
    }

    private void Release()
    {
        _txn = 0;
        _env.DangerousRelease();
    }
}
