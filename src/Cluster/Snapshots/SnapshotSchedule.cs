namespace Cairn.Cluster.Snapshots;

/// <summary>
/// When a node's snapshot point moves, decided inside each entry's apply transaction from log indexes only, so every
/// node with the same interval keeps the same points (and the same <c>$cluster.applied</c> tree). An entry at least
/// <c>interval</c> past the last candidate makes that candidate the snapshot and itself the next candidate: the
/// snapshot trails the applied index by one to two intervals, so a follower only that far behind still gets log
/// entries, not the whole environment.
/// </summary>
internal static class SnapshotSchedule
{
    /// <summary>Key in <see cref="ClusterTrees.Applied"/>: the point DotNext may compact the log up to.</summary>
    public static ReadOnlySpan<byte> SnapshotKey => "snapshot"u8;

    /// <summary>Key in <see cref="ClusterTrees.Applied"/>: the point that becomes the snapshot one interval later.</summary>
    public static ReadOnlySpan<byte> CandidateKey => "snapshot-candidate"u8;

    /// <summary>
    /// Moves the points for the entry at <paramref name="index"/> of <paramref name="term"/>, in its transaction.
    /// Returns the new snapshot point, or null when it did not move. An interval of 0 never moves them.
    /// </summary>
    public static SnapshotPoint? Advance(Tree applied, long index, long term, long interval)
    {
        if (interval <= 0)
            return null;
        var candidate = SnapshotPoint.Read(applied, CandidateKey);
        if (index - candidate.Index < interval)
            return null;
        new SnapshotPoint(index, term).Write(applied, CandidateKey);
        if (candidate.IsNone)
            return null;
        candidate.Write(applied, SnapshotKey);
        return candidate;
    }

    /// <summary>The snapshot point an environment holds (none: 0).</summary>
    public static SnapshotPoint Read(StorageEnvironment environment)
    {
        using var read = environment.BeginRead();
        return read.TryOpenTree(ClusterTrees.Applied, out var applied) ? SnapshotPoint.Read(applied, SnapshotKey) : default;
    }
}
