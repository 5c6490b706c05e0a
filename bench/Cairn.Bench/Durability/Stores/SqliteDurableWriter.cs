using Microsoft.Data.Sqlite;

namespace Cairn.Bench.Durability.Stores;

/// <summary>
/// One connection and its three prepared statements (BEGIN IMMEDIATE, the insert, COMMIT), reused
/// for every put; only the parameter bytes change. BEGIN IMMEDIATE takes the write lock up front,
/// which costs nothing alone and is what several writers on one file need (a deferred transaction
/// that later needs the lock can fail with SQLITE_BUSY instead of waiting). Writers of one store
/// hold the store's in-process lock from BEGIN to COMMIT, so they wait for each other on it rather
/// than in the driver's busy-retry sleeps (<see cref="SqliteDurableStore"/>).
/// </summary>
/// <remarks>
/// Allocation per put: Microsoft.Data.Sqlite creates a SqliteDataReader (and the enumerator over
/// the command's statements) for every ExecuteNonQuery, three per commit; the memory diagnoser
/// shows the total. The parameter values are arrays kept across puts and refilled in place
/// (SQLite copies a bound blob), so the key and value themselves cost nothing.
/// </remarks>
internal sealed class SqliteDurableWriter : IDurableWriter
{
    private readonly SqliteConnection _connection;
    private readonly Lock _writeLock;
    private readonly SqliteCommand _begin, _insert, _commit, _rollback;
    private readonly SqliteParameter _key, _value;

    public SqliteDurableWriter(SqliteConnection connection, Lock writeLock)
    {
        _connection = connection;
        _writeLock = writeLock;
        _begin = Prepare("BEGIN IMMEDIATE");
        _insert = Prepare("INSERT OR REPLACE INTO kv(key, value) VALUES ($key, $value)", insert =>
        {
            insert.Parameters.Add("$key", SqliteType.Blob).Value = Array.Empty<byte>();
            insert.Parameters.Add("$value", SqliteType.Blob).Value = Array.Empty<byte>();
        });
        _key = _insert.Parameters["$key"];
        _value = _insert.Parameters["$value"];
        _commit = Prepare("COMMIT");
        _rollback = Prepare("ROLLBACK");
    }

    public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        Fill(_key, key);
        Fill(_value, value);
        lock (_writeLock)
        {
            _begin.ExecuteNonQuery();
            try
            {
                _insert.ExecuteNonQuery();
                _commit.ExecuteNonQuery();
            }
            catch
            {
                // A failed COMMIT can leave the transaction open (SQLITE_BUSY); a failed insert always does.
                if (SQLitePCL.raw.sqlite3_get_autocommit(_connection.Handle) == 0)
                    _rollback.ExecuteNonQuery();
                throw;
            }
        }
    }

    public void Dispose()
    {
        _begin.Dispose();
        _insert.Dispose();
        _commit.Dispose();
        _rollback.Dispose();
        _connection.Dispose();
    }

    // The parameter binds its whole array, so the array must be exactly the bytes' length; puts of
    // one size (the benchmarks') refill the same array.
    private static void Fill(SqliteParameter parameter, ReadOnlySpan<byte> bytes)
    {
        if (parameter.Value is not byte[] array || array.Length != bytes.Length)
            parameter.Value = array = new byte[bytes.Length];
        bytes.CopyTo(array);
    }

    private SqliteCommand Prepare(string sql, Action<SqliteCommand>? addParameters = null)
    {
        var command = _connection.CreateCommand();
        command.CommandText = sql;
        addParameters?.Invoke(command);
        command.Prepare();
        return command;
    }
}
