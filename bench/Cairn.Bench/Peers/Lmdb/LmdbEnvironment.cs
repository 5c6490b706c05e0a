namespace Cairn.Bench.Peers.Lmdb;

/// <summary>An open LMDB environment (one directory holding data.mdb and lock.mdb).</summary>
public sealed class LmdbEnvironment : IDisposable
{
    private const uint FileMode = 0b110_100_100; // 0644

    private readonly SafeLmdbEnvironmentHandle _handle;

    private LmdbEnvironment(SafeLmdbEnvironmentHandle handle, LmdbEnvironmentFlags flags)
    {
        _handle = handle;
        Flags = flags;
    }

    public LmdbEnvironmentFlags Flags { get; }

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
