using System.Runtime.InteropServices;

namespace Cairn.Bench.Peers.Lmdb;

/// <summary>An open LMDB environment (one directory holding data.mdb and lock.mdb).</summary>
public sealed unsafe class LmdbEnvironment : IDisposable
{
    private const uint FileMode = 0b110_100_100; // 0644

    private readonly SafeLmdbEnvironmentHandle _handle;

    private LmdbEnvironment(SafeLmdbEnvironmentHandle handle, LmdbEnvironmentFlags flags)
    {
        _handle = handle;
        Flags = flags;
    }

    /// <summary>The flags asked for at open; <see cref="GetEffectiveFlags"/> asks LMDB what it runs with.</summary>
    public LmdbEnvironmentFlags Flags { get; }

    /// <summary>The loaded library's version string ("LMDB 0.9.24: (July 24, 2019)").</summary>
    public static string LibraryVersion
    {
        get
        {
            NativePeerLibraries.Load(LmdbNative.LibraryName);
            return Marshal.PtrToStringUTF8((nint)LmdbNative.mdb_version(null, null, null)) ?? "unknown";
        }
    }

    /// <summary>Opens (creating if needed) the environment in an existing <paramref name="directory"/>.</summary>
    public static LmdbEnvironment Open(string directory, LmdbEnvironmentOptions options)
    {
        NativePeerLibraries.Load(LmdbNative.LibraryName);
        LmdbException.Check(LmdbNative.mdb_env_create(out var env), "mdb_env_create");
        var handle = new SafeLmdbEnvironmentHandle(env);
        try
        {
            LmdbException.Check(LmdbNative.mdb_env_set_mapsize(env, checked((nuint)options.MapSize)), "mdb_env_set_mapsize");
            if (options.MaxReaders is { } readers)
                LmdbException.Check(LmdbNative.mdb_env_set_maxreaders(env, checked((uint)readers)), "mdb_env_set_maxreaders");
            if (options.MaxDatabases is { } databases)
                LmdbException.Check(LmdbNative.mdb_env_set_maxdbs(env, checked((uint)databases)), "mdb_env_set_maxdbs");
            LmdbException.Check(LmdbNative.mdb_env_open(env, directory, (uint)options.Flags, FileMode), "mdb_env_open");
            return new LmdbEnvironment(handle, options.Flags);
        }
        catch
        {
            // lmdb.h: after a failed mdb_env_open the handle must still be closed.
            handle.Dispose();
            throw;
        }
    }

    /// <summary>Begins a write transaction; only one can be live at a time (the writer mutex).</summary>
    public LmdbTransaction BeginWrite() => LmdbTransaction.Begin(_handle, LmdbTransactionFlags.None);

    /// <summary>Begins a read-only transaction; reuse it with Reset/Renew rather than beginning another.</summary>
    public LmdbTransaction BeginRead() => LmdbTransaction.Begin(_handle, LmdbTransactionFlags.ReadOnly);

    /// <summary>Opens the main (unnamed) database, which every benchmark uses; dbi handles live as long as the environment.</summary>
    public uint OpenMainDatabase()
    {
        using var txn = BeginWrite();
        var dbi = txn.OpenDatabase(name: null, LmdbDatabaseFlags.None);
        txn.Commit();
        return dbi;
    }

    /// <summary>
    /// One put in a write transaction of its own, committed before this returns: durable then unless
    /// the environment was opened with NoSync or NoMetaSync. The same calls as BeginWrite, Put and
    /// Commit, without the transaction object, so a commit allocates nothing.
    /// </summary>
    public void PutCommitted(uint dbi, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        var added = false;
        _handle.DangerousAddRef(ref added);
        try
        {
            LmdbException.Check(LmdbNative.mdb_txn_begin(_handle.DangerousGetHandle(), 0, (uint)LmdbTransactionFlags.None, out var txn), "mdb_txn_begin");
            int rc;
            fixed (byte* k = key)
            fixed (byte* v = value)
            {
                var keyVal = new MdbVal(k, key.Length);
                var dataVal = new MdbVal(v, value.Length);
                rc = LmdbNative.mdb_put(txn, dbi, &keyVal, &dataVal, (uint)LmdbPutFlags.None);
            }
            if (rc != 0)
            {
                LmdbNative.mdb_txn_abort(txn);
                LmdbException.Throw("mdb_put", rc);
            }
            // mdb_txn_commit frees the transaction whether or not it succeeds.
            LmdbException.Check(LmdbNative.mdb_txn_commit(txn), "mdb_txn_commit");
        }
        finally
        {
            _handle.DangerousRelease();
        }
    }

    /// <summary>The flags LMDB runs with (<c>mdb_env_get_flags</c>), which checks read to confirm a mode.</summary>
    public LmdbEnvironmentFlags GetEffectiveFlags()
    {
        var added = false;
        _handle.DangerousAddRef(ref added);
        try
        {
            LmdbException.Check(LmdbNative.mdb_env_get_flags(_handle.DangerousGetHandle(), out var flags), "mdb_env_get_flags");
            return (LmdbEnvironmentFlags)flags;
        }
        finally
        {
            _handle.DangerousRelease();
        }
    }

    /// <summary>Flushes to disk whatever NoSync commits left to the OS.</summary>
    public void Sync(bool force = true)
    {
        var added = false;
        _handle.DangerousAddRef(ref added);
        try
        {
            LmdbException.Check(LmdbNative.mdb_env_sync(_handle.DangerousGetHandle(), force ? 1 : 0), "mdb_env_sync");
        }
        finally
        {
            _handle.DangerousRelease();
        }
    }

    public void Dispose() => _handle.Dispose();
}
