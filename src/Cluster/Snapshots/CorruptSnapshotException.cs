namespace Cairn.Cluster;

/// <summary>
/// A snapshot a leader sent is not a complete, undamaged Cairn backup stream covering the index it claims (a wrong
/// checksum, a stream cut short, an environment that does not hold the snapshot's index). The node refuses it and
/// stays as it was. Names the snapshot's log index and the byte offset in the stream where it went wrong.
/// </summary>
public sealed class CorruptSnapshotException : IOException
{
    /// <param name="snapshotIndex">The log index the snapshot claims to cover.</param>
    /// <param name="offset">Where in the snapshot's bytes the problem is (-1 when it is not about one byte).</param>
    /// <param name="detail">What is wrong.</param>
    /// <param name="inner">The error that found it, if any.</param>
    public CorruptSnapshotException(long snapshotIndex, long offset, string detail, Exception? inner = null)
        : base($"The snapshot at Raft log index {snapshotIndex} was refused (at byte {offset} of its stream): {detail}", inner)
    {
        SnapshotIndex = snapshotIndex;
        Offset = offset;
    }

    /// <summary>The log index the snapshot claims to cover.</summary>
    public long SnapshotIndex { get; }

    /// <summary>The byte offset inside the snapshot's stream (-1: not about one byte).</summary>
    public long Offset { get; }
}
