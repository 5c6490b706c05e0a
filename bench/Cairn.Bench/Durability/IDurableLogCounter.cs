namespace Cairn.Bench.Durability;

/// <summary>
/// Optional for an <see cref="IDurableStore"/> that batches callers into shared durable log writes
/// (group commit): how many durable log writes it made, so the concurrent-commit benchmark can
/// report operations per log write. Stores whose every commit is its own sync (LMDB, SQLite) do
/// not implement it: theirs is 1 by construction.
/// </summary>
public interface IDurableLogCounter
{
    /// <summary>What one counted write is, for logs ("WAL sync", "journal write").</summary>
    string LogWriteName { get; }

    /// <summary>
    /// Durable log writes since the previous call (since open for the first). Called between
    /// batches of puts, never per put; may allocate.
    /// </summary>
    long LogWritesSinceLastRead();
}
