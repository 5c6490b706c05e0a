namespace Cairn.Cluster;

/// <summary>An acknowledged write: a majority holds it and the acknowledging node has applied it.</summary>
/// <param name="LogIndex">
/// The Raft log index the write was applied at (for a retry of a write applied before, that index; 0 if the retry
/// came after the client's next write). A read with this as its minimum index sees the write.
/// </param>
/// <param name="WasRetry">True when this attempt found the write already applied by an earlier attempt.</param>
public readonly record struct ClusterWriteResult(long LogIndex, bool WasRetry);
