namespace Cairn.Cluster;

/// <summary>
/// Bytes of the cluster's own that do not decode: a Raft log entry's command (<see cref="CorruptCommandException"/>)
/// or a configuration (<see cref="CorruptMembershipException"/>). Names where the bytes came from and the byte offset
/// inside them where decoding went wrong, so a caller can catch either and report one place.
/// </summary>
public abstract class CorruptClusterDataException : IOException
{
    /// <param name="location">The file or log entry the bytes came from, as the message names it.</param>
    /// <param name="offset">Where in those bytes the problem is.</param>
    /// <param name="expected">What the bytes should have been ("command", "configuration").</param>
    /// <param name="detail">What is wrong.</param>
    private protected CorruptClusterDataException(string location, long offset, string expected, string detail)
        : base($"{location} is not a valid Cairn.Cluster {expected} (at byte {offset}): {detail}")
    {
        Location = location;
        Offset = offset;
    }

    /// <summary>The file, or the log entry, that held the bytes.</summary>
    public string Location { get; }

    /// <summary>The byte offset inside them.</summary>
    public long Offset { get; }
}
