namespace Cairn;

/// <summary>When a write transaction's <see cref="WriteTransaction.Commit(CommitMode)"/> returns.</summary>
/// <remarks>
/// Both modes keep atomicity and order: after a crash, the environment holds a prefix of the commit order
/// (whole transactions only), and every transaction that was durable before the crash is in it. Lazy and
/// durable commits may be mixed: a durable commit writes every lazy one before it in the same journal write,
/// so it makes them durable too.
/// </remarks>
public enum CommitMode
{
    /// <summary>Returns once the transaction's journal entry is durable on disk (one O_DIRECT|O_DSYNC write).</summary>
    Durable = 0,

    /// <summary>
    /// Returns once the transaction is published (readers that begin now see it) and its journal entry is
    /// queued in memory. The entry is written with the next durable commit, when queued entries pass
    /// <see cref="StorageOptions.LazyCommitMaxBytes"/>, when the oldest has waited
    /// <see cref="StorageOptions.LazyCommitMaxDelay"/>, or on <see cref="StorageEnvironment.FlushJournal"/>,
    /// <see cref="StorageEnvironment.Checkpoint"/> or <see cref="StorageEnvironment.Dispose"/>. A crash before
    /// then loses it and every transaction after it. <see cref="StorageEnvironment.LastDurableTransactionId"/>
    /// says how far the journal holds. Like LMDB's MDB_NOSYNC or RocksDB's <c>sync=false</c>, but a crash
    /// never leaves the data file inconsistent: the flusher writes no page of a transaction before its entry.
    /// </summary>
    Lazy = 1,
}
