namespace Cairn.Bench.Peers.Lmdb;

/// <summary>What <see cref="LmdbEnvironment.Open"/> sets before <c>mdb_env_open</c>.</summary>
public sealed record LmdbEnvironmentOptions
{
    public LmdbEnvironmentFlags Flags { get; init; }

    /// <summary>The map's size, which caps the database's; address space only, not disk, without WriteMap.</summary>
    public long MapSize { get; init; } = 1L << 30;

    /// <summary>Null keeps LMDB's default (126).</summary>
    public int? MaxReaders { get; init; }

    /// <summary>Named databases; null keeps LMDB's default, which allows only the main database.</summary>
    public int? MaxDatabases { get; init; }
}
