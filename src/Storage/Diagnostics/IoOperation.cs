namespace Cairn.Diagnostics;

/// <summary>
/// One recorded I/O operation, copied out of an <see cref="IoStats"/> ring by
/// <see cref="IoStats.Snapshot"/>.
/// </summary>
/// <param name="Sequence">
/// The 0-based order in which the operation was recorded in its environment. A snapshot's
/// sequences increase but may have gaps: a gap is a record that was still being written when the
/// snapshot was taken, or one that was dropped (<see cref="IoStats.Dropped"/>).
/// </param>
/// <param name="Kind">What the operation was.</param>
/// <param name="StartUtc">When it started (UTC, <see cref="DateTimeKind.Utc"/>).</param>
/// <param name="Duration">How long it took, whether or not it succeeded.</param>
/// <param name="Bytes">Bytes the operation was asked to write; 0 for a sync.</param>
/// <param name="FilePath">The journal or data file.</param>
/// <param name="FirstTransactionId">
/// The lowest transaction the operation covers: for a journal write, the first transaction in the
/// entries written; for a flush, the lowest transaction of the page versions written; for a sync,
/// the last transaction synced (equal to <paramref name="LastTransactionId"/>).
/// </param>
/// <param name="LastTransactionId">The highest transaction the operation covers.</param>
/// <param name="TransactionCount">For a journal write, how many transactions the write carries.</param>
/// <param name="Failed">The operation threw; its duration is still the time until it did.</param>
/// <param name="EnvironmentCount">
/// For a journal write, how many environments' entries it carried: 1 for an environment's own write; more for
/// a journal group's shared write, which its root records once (<see cref="TransactionCount"/> then counts every
/// environment's transactions, and the transaction ids are the root's own); each branch records its share.
/// </param>
public readonly record struct IoOperation(
    long Sequence,
    IoOperationKind Kind,
    DateTime StartUtc,
    TimeSpan Duration,
    long Bytes,
    string FilePath,
    long FirstTransactionId,
    long LastTransactionId,
    int TransactionCount,
    bool Failed,
    int EnvironmentCount = 1);
