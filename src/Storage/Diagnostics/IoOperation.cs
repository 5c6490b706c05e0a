namespace Cairn.Diagnostics;

/// <summary>
/// One recorded I/O operation, copied out of an <see cref="IoStats"/> ring by
/// <see cref="IoStats.Snapshot"/>.
/// </summary>
/// <remarks>Init-only properties rather than positional parameters, so the type can grow without breaking a caller
/// (docs/decisions.md, issue 26 item 5): the members of 0.2 are <c>required</c>; a member added later has a default.</remarks>
public readonly record struct IoOperation
{
    /// <summary>The 0-based order in which the operation was recorded in its environment. A snapshot's sequences increase but may have gaps: a gap is a record that was still being written when the snapshot was taken, or one that was dropped (<see cref="IoStats.Dropped"/>).</summary>
    public required long Sequence { get; init; }

    /// <summary>What the operation was.</summary>
    public required IoOperationKind Kind { get; init; }

    /// <summary>When it started (UTC, <see cref="DateTimeKind.Utc"/>).</summary>
    public required DateTime StartUtc { get; init; }

    /// <summary>How long it took, whether or not it succeeded.</summary>
    public required TimeSpan Duration { get; init; }

    /// <summary>Bytes the operation was asked to write; 0 for a sync.</summary>
    public required long Bytes { get; init; }

    /// <summary>The journal or data file.</summary>
    public required string FilePath { get; init; }

    /// <summary>The lowest transaction the operation covers: for a journal write, the first transaction in the entries written; for a flush, the lowest transaction of the page versions written; for a sync, the last transaction synced (equal to <see cref="LastTransactionId"/>).</summary>
    public required long FirstTransactionId { get; init; }

    /// <summary>The highest transaction the operation covers.</summary>
    public required long LastTransactionId { get; init; }

    /// <summary>For a journal write, how many transactions the write carries.</summary>
    public required int TransactionCount { get; init; }

    /// <summary>The operation threw; its duration is still the time until it did.</summary>
    public required bool Failed { get; init; }

    /// <summary>For a journal write, how many environments' entries it carried: 1 for an environment's own write; more for a journal group's shared write, which its root records once (<see cref="TransactionCount"/> then counts every environment's transactions, and the transaction ids are the root's own); each branch records its share.</summary>
    public required int EnvironmentCount { get; init; }

    /// <summary>For a journal group's shared write, as the root records it: the names (folder names) of the environments whose entries it carried, in the order of their entries, the root's (marked " (root)") included when it had any; empty for any other operation.</summary>
    public IReadOnlyList<string> Environments
    {
        get => _environments ?? [];
        init => _environments = value is { Count: > 0 } ? value : null;
    }

    private readonly IReadOnlyList<string>? _environments;

    /// <summary>Field by field, <see cref="Environments"/> name by name.</summary>
    public bool Equals(IoOperation other)
        => Sequence == other.Sequence && Kind == other.Kind && StartUtc == other.StartUtc && Duration == other.Duration && Bytes == other.Bytes
           && FilePath == other.FilePath && FirstTransactionId == other.FirstTransactionId && LastTransactionId == other.LastTransactionId
           && TransactionCount == other.TransactionCount && Failed == other.Failed && EnvironmentCount == other.EnvironmentCount
           && Environments.SequenceEqual(other.Environments);

    /// <summary>Consistent with <see cref="Equals(IoOperation)"/>.</summary>
    public override int GetHashCode()
        => HashCode.Combine(Sequence, Kind, StartUtc, Duration, Bytes, FilePath, HashCode.Combine(FirstTransactionId, LastTransactionId,
            TransactionCount, Failed, EnvironmentCount, Environments.Count));
}
