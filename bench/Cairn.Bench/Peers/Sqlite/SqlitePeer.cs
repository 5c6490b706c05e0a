using System.Globalization;
using Microsoft.Data.Sqlite;

namespace Cairn.Bench.Peers.Sqlite;

/// <summary>
/// Opens SQLite connections the way the durable peer uses them, and reports which SQLite they reach.
/// Microsoft.Data.Sqlite 10.0.11 resolves SQLitePCLRaw 2.1.13's bundle_e_sqlite3 here, which loads
/// its own build of SQLite (libe_sqlite3.so from SQLitePCLRaw.lib.e_sqlite3), not the system's
/// libsqlite3; <see cref="Describe"/> reads the version and path from the running process.
/// </summary>
public static class SqlitePeer
{
    /// <summary>
    /// A connection with the durable settings: WAL, synchronous=FULL (the WAL is synced at every
    /// commit), checked by reading them back. No pooling, so disposing closes the file and a
    /// reopen sees only what reached it.
    /// </summary>
    public static SqliteConnection OpenDurable(string path)
    {
        var connection = new SqliteConnection(new SqliteConnectionStringBuilder
        {
            DataSource = path,
            Mode = SqliteOpenMode.ReadWriteCreate,
            Cache = SqliteCacheMode.Private,
            Pooling = false,
        }.ToString());
        try
        {
            connection.Open();
            // journal_mode is stored in the file and answers with the mode now in force; synchronous
            // is per connection. Either may be refused silently, so both are read back.
            var mode = Scalar(connection, "PRAGMA journal_mode=WAL");
            if (!string.Equals(mode, "wal", StringComparison.OrdinalIgnoreCase))
                throw new InvalidOperationException($"SQLite refused WAL mode for {path}: journal_mode is '{mode}'");
            Execute(connection, "PRAGMA synchronous=FULL");
            var synchronous = Scalar(connection, "PRAGMA synchronous");
            if (synchronous != "2")
                throw new InvalidOperationException($"SQLite synchronous is {synchronous}, not 2 (FULL)");
            return connection;
        }
        catch
        {
            connection.Dispose();
            throw;
        }
    }

    /// <summary>Library file, version, and the settings of <paramref name="connection"/> that decide durability and commit cost.</summary>
    public static string Describe(SqliteConnection connection)
    {
        var library = LoadedLibraryPath() ?? "(no sqlite library found in /proc/self/maps)";
        return $"SQLite {Scalar(connection, "SELECT sqlite_version()")} ({Scalar(connection, "SELECT sqlite_source_id()")}) from {library}; " +
            $"journal_mode={Scalar(connection, "PRAGMA journal_mode")}, synchronous={Scalar(connection, "PRAGMA synchronous")} (2 = FULL), " +
            $"wal_autocheckpoint={Scalar(connection, "PRAGMA wal_autocheckpoint")} pages, page_size={Scalar(connection, "PRAGMA page_size")}, " +
            $"locking_mode={Scalar(connection, "PRAGMA locking_mode")}";
    }

    /// <summary>The SQLite library mapped into this process, from /proc/self/maps (Linux); null if none is.</summary>
    public static string? LoadedLibraryPath()
        => NativePeerLibraries.MappedLibraryPath(static name =>
            name.Contains("sqlite3", StringComparison.Ordinal) && (name.EndsWith(".so", StringComparison.Ordinal) || name.Contains(".so.", StringComparison.Ordinal)));

    public static void Execute(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    public static string? Scalar(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        return Convert.ToString(command.ExecuteScalar(), CultureInfo.InvariantCulture);
    }
}
