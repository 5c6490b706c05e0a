namespace Cairn.Cluster;

/// <summary>
/// The trees a cluster node keeps in its Cairn environment for itself, beside the application's. Their names start
/// with <see cref="ReservedPrefix"/>, which a <see cref="ClusterCommand"/> may not use.
/// </summary>
public static class ClusterTrees
{
    /// <summary>The prefix of the cluster's own tree names.</summary>
    public const string ReservedPrefix = "$cluster.";

    /// <summary>One key, <c>index</c>: the last Raft log index applied, written in the same transaction as the entry's effects.</summary>
    public const string Applied = ReservedPrefix + "applied";

    /// <summary>Per client id: the last sequence applied and the log index it was applied at (the dedup table).</summary>
    public const string Sessions = ReservedPrefix + "sessions";

    /// <summary>The same sessions keyed by (last log index, client), oldest first, to evict the least recently used.</summary>
    public const string SessionsByAge = ReservedPrefix + "sessions-by-age";
}
