using LightningDB;

namespace Cairn.Bench.Peers.Lmdb;

/// <summary>
/// Opens LMDB through LightningDB (NuGet package <c>LightningDB</c>, 0.23.1) the way the key-value and
/// durable-commit stores use it, and reports what runs. The package carries its own native build,
/// <c>runtimes/linux-x64/native/liblmdb.so</c> (LMDB 1.0.1), but that build needs glibc 2.38
/// (<c>__isoc23_strtol</c>) and does not load on Debian 12 (glibc 2.36); <see cref="NativePeerLibraries"/>
/// then loads Debian's <c>liblmdb.so.0</c> (LMDB 0.9.24, package <c>liblmdb0</c>) in its place.
/// <see cref="Describe"/> says which one the process runs: the version LMDB reports and the file
/// mapped into the process.
/// </summary>
public static class LmdbPeer
{
    /// <summary>Creates and opens an environment in an existing <paramref name="directory"/> with exactly <paramref name="flags"/>.</summary>
    public static LightningEnvironment Open(string directory, EnvironmentOpenFlags flags, long mapSize)
    {
        NativePeerLibraries.Load(NativePeerLibraries.Lmdb);
        var env = new LightningEnvironment(directory, new EnvironmentConfiguration { MapSize = mapSize });
        try
        {
            env.Open(flags);
            return env;
        }
        catch
        {
            env.Dispose();
            throw;
        }
    }

    /// <summary>Opens the main (unnamed) database, which every benchmark uses; the handle lives as long as the environment.</summary>
    public static LightningDatabase OpenMainDatabase(LightningEnvironment env)
    {
        using var tx = env.BeginTransaction(TransactionBeginFlags.None);
        var db = tx.OpenDatabase(configuration: new DatabaseConfiguration { Flags = DatabaseOpenFlags.None });
        tx.Commit().ThrowOnError();
        return db;
    }

    /// <summary>Library version, the file it was loaded from and the flags LMDB runs with (<c>mdb_env_get_flags</c>).</summary>
    public static string Describe(LightningEnvironment env)
    {
        var library = LoadedLibraryPath() ?? "(no lmdb library found in /proc/self/maps)";
        return $"{env.Version.Version} from {library} through LightningDB {PackageVersions.Of(typeof(LightningEnvironment))}; flags {env.Flags}";
    }

    /// <summary>The LMDB library mapped into this process, from /proc/self/maps (Linux); null if none is.</summary>
    public static string? LoadedLibraryPath()
        => NativePeerLibraries.MappedLibraryPath(static name => name.StartsWith("liblmdb", StringComparison.Ordinal));
}
