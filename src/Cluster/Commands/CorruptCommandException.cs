namespace Cairn.Cluster;

/// <summary>
/// A Raft log entry that is not a command this version can apply: a wrong checksum, an unknown format version, or
/// lengths that run past the entry. Names the log index and the byte offset inside the entry where it went wrong.
/// </summary>
public sealed class CorruptCommandException : CorruptClusterDataException
{
    /// <param name="logIndex">The entry's Raft log index (0 when decoded outside a log).</param>
    /// <param name="offset">Where in the entry's bytes the problem is.</param>
    /// <param name="detail">What is wrong.</param>
    public CorruptCommandException(long logIndex, long offset, string detail)
        : base($"Raft log entry {logIndex}", offset, "command", detail)
        => LogIndex = logIndex;

    /// <summary>The entry's Raft log index.</summary>
    public long LogIndex { get; }
}
