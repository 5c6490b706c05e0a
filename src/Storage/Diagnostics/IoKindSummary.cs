namespace Cairn.Diagnostics;

/// <summary>The operations of one kind in a snapshot, summed up. All zero when there were none.</summary>
/// <remarks>Init-only properties rather than positional parameters, so the type can grow without breaking a caller
/// (docs/decisions.md, issue 26 item 5): the members of 0.2 are <c>required</c>; a member added later has a default.</remarks>
public readonly record struct IoKindSummary
{
    /// <summary>The kind summarized.</summary>
    public required IoOperationKind Kind { get; init; }

    /// <summary>Operations of this kind, failed ones included.</summary>
    public required int Count { get; init; }

    /// <summary>How many of them threw.</summary>
    public required int Failed { get; init; }

    /// <summary>Bytes they were asked to write.</summary>
    public required long Bytes { get; init; }

    /// <summary>Their durations added up.</summary>
    public required TimeSpan TotalDuration { get; init; }

    /// <summary><see cref="TotalDuration"/> over <see cref="Count"/>, truncated to 100 ns.</summary>
    public required TimeSpan MeanDuration { get; init; }

    /// <summary>The median duration (nearest rank: the ⌈0.50·n⌉-th shortest).</summary>
    public required TimeSpan P50Duration { get; init; }

    /// <summary>The 99th percentile duration (nearest rank: the ⌈0.99·n⌉-th shortest).</summary>
    public required TimeSpan P99Duration { get; init; }

    /// <summary>The longest duration.</summary>
    public required TimeSpan MaxDuration { get; init; }

    /// <summary><see cref="Bytes"/> over <see cref="TotalDuration"/>: the rate while writing, not over wall-clock time; 0 when the total duration is 0.</summary>
    public required double BytesPerSecond { get; init; }

    /// <summary>The summary of a kind with no operations: all zero.</summary>
    internal static IoKindSummary None(IoOperationKind kind) => new()
    {
        Kind = kind, Count = 0, Failed = 0, Bytes = 0, TotalDuration = TimeSpan.Zero, MeanDuration = TimeSpan.Zero,
        P50Duration = TimeSpan.Zero, P99Duration = TimeSpan.Zero, MaxDuration = TimeSpan.Zero, BytesPerSecond = 0,
    };
}
