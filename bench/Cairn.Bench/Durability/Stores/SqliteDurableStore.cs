using Cairn.Bench.Peers.Sqlite;
using Microsoft.Data.Sqlite;

namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// SQLite in WAL mode with synchronous=FULL through Microsoft.Data.Sqlite: a table
/// <c>kv(key BLOB PRIMARY KEY, value BLOB) WITHOUT ROWID</c> (the key is the B-tree key, as in the
/// other stores, rather than an index beside a rowid table), each put its own transaction. Each
/// commit appends the changed pages to the WAL and syncs it once; every 1,000 WAL pages the
/// committing connection also checkpoints them into the database file (SQLite's default), which
/// is part of what SQLite's durability costs.
/// </summary>
/// <remarks>
/// Writers on several threads take turns through one in-process lock held from <c>BEGIN IMMEDIATE</c>
/// to <c>COMMIT</c>, as LMDB's writer mutex makes its writers take turns. Without it a connection
/// that finds the write lock taken gets SQLITE_BUSY and Microsoft.Data.Sqlite retries the statement
/// after a 150 ms sleep each time, so some callers starve while others commit (measured once at 64 callers: 408 commits/s
/// against about 1,600 with one, and a p99 latency of 3.6 s): that would time the driver's retry
/// policy, not SQLite's commit. Uncontended (one writer) the lock costs nothing measurable.
/// </remarks>
public sealed class SqliteDurableStore : IDurableStore
{
    internal const string FileName = "kv.sqlite";

    private readonly Lock _writeLock = new();
    private string? _path;
    private SqliteConnection? _checkConnection;

    public void Open(string directory)
    {
        if (_path is not null)
            throw new InvalidOperationException("already open");
        var path = Path.Combine(directory, FileName);
        using (var connection = SqlitePeer.OpenDurable(path))
            SqlitePeer.Execute(connection, "CREATE TABLE IF NOT EXISTS kv(key BLOB PRIMARY KEY, value BLOB) WITHOUT ROWID");
        _path = path;
    }

    /// <summary>A connection of its own per writer (connections must not be shared between threads); the writers share the store's write lock.</summary>
    public IDurableWriter CreateWriter() => new SqliteDurableWriter(SqlitePeer.OpenDurable(DatabasePath), _writeLock);

    // A connection of its own, closed at once: one left open beside the writer's would be a second
    // WAL reader for the whole benchmark.
    public string Describe()
    {
        using var connection = SqlitePeer.OpenDurable(DatabasePath);
        return "sqlite: " + SqlitePeer.Describe(connection);
    }

    public int ReadForCheck(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        using var command = CheckConnection.CreateCommand();
        command.CommandText = "SELECT value FROM kv WHERE key = $key";
        command.Parameters.Add("$key", SqliteType.Blob).Value = key.ToArray();
        if (command.ExecuteScalar() is not byte[] value)
            return -1;
        value.CopyTo(destination);
        return value.Length;
    }

    public void Dispose()
    {
        _checkConnection?.Dispose();
        _checkConnection = null;
        _path = null;
    }

    private string DatabasePath => _path ?? throw new InvalidOperationException("not open");

    private SqliteConnection CheckConnection => _checkConnection ??= SqlitePeer.OpenDurable(DatabasePath);
}
