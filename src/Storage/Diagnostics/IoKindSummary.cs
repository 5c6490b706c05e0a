namespace Cairn.Diagnostics;

/// <summary>The operations of one kind in a snapshot, summed up. All zero when there were none.</summary>
/// <param name="Kind">The kind summarized.</param>
/// <param name="Count">Operations of this kind, failed ones included.</param>
/// <param name="Failed">How many of them threw.</param>
/// <param name="Bytes">Bytes they were asked to write.</param>
/// <param name="TotalDuration">Their durations added up.</param>
/// <param name="MeanDuration"><paramref name="TotalDuration"/> over <paramref name="Count"/>, truncated to 100 ns.</param>
/// <param name="P50Duration">The median duration (nearest rank: the ⌈0.50·n⌉-th shortest).</param>
/// <param name="P99Duration">The 99th percentile duration (nearest rank: the ⌈0.99·n⌉-th shortest).</param>
/// <param name="MaxDuration">The longest duration.</param>
/// <param name="BytesPerSecond">
/// <paramref name="Bytes"/> over <paramref name="TotalDuration"/>: the rate while writing, not
/// over wall-clock time; 0 when the total duration is 0.
/// </param>
public readonly record struct IoKindSummary(
    IoOperationKind Kind,
    int Count,
    int Failed,
    long Bytes,
    TimeSpan TotalDuration,
    TimeSpan MeanDuration,
    TimeSpan P50Duration,
    TimeSpan P99Duration,
    TimeSpan MaxDuration,
    double BytesPerSecond);
