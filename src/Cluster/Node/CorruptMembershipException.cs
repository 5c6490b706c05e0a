namespace Cairn.Cluster;

/// <summary>
/// A cluster configuration that does not decode: a node's <c>members</c> file or a configuration entry in the Raft
/// log with a wrong checksum, an unknown format, or lengths past its end. Names where it came from and the offset.
/// </summary>
public sealed class CorruptMembershipException : CorruptClusterDataException
{
    /// <param name="source">The file, or the log entry, the bytes came from.</param>
    /// <param name="offset">Where in those bytes the problem is.</param>
    /// <param name="detail">What is wrong.</param>
    public CorruptMembershipException(string source, long offset, string detail)
        : base(source, offset, "configuration", detail)
    {
    }
}
