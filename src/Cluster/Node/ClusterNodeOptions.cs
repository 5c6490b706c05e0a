using System.Net;
using Microsoft.AspNetCore.Connections;

namespace Cairn.Cluster;

/// <summary>
/// One node of a replicated environment: where it keeps its data, who it is, who the members are, and (optionally)
/// how it listens and dials. Every member is given the same <see cref="Members"/> list; membership changes are not
/// built yet.
/// </summary>
public sealed record ClusterNodeOptions
{
    /// <summary>The node's folder: its Cairn environment in <c>data/</c>, its Raft log in <c>raft/</c>.</summary>
    public required string DirectoryPath { get; init; }

    /// <summary>The address this node listens on, which is also its identity in every member's list.</summary>
    public required EndPoint LocalEndPoint { get; init; }

    /// <summary>Every member's address, this node's included.</summary>
    public required IReadOnlyList<EndPoint> Members { get; init; }

    /// <summary>
    /// Gives the node its listener for <see cref="LocalEndPoint"/>; null binds a TCP socket (Kestrel's socket transport).
    /// </summary>
    public IConnectionListenerFactory? Listener { get; init; }

    /// <summary>
    /// Dials another member, by its address in <see cref="Members"/>; null dials it directly over TCP. A test's fault
    /// proxy goes here.
    /// </summary>
    public IConnectionFactory? Dialler { get; init; }

    /// <summary>The shortest election timeout, in milliseconds.</summary>
    public int LowerElectionTimeout { get; init; } = 150;

    /// <summary>The longest election timeout, in milliseconds.</summary>
    public int UpperElectionTimeout { get; init; } = 300;

    /// <summary>How many client sessions the dedup table keeps before it evicts the least recently used.</summary>
    public int SessionCapacity { get; init; } = 65_536;

    /// <summary>
    /// Settings for the node's Cairn environment; its <see cref="StorageOptions.DirectoryPath"/> is replaced by the
    /// node's <c>data/</c> folder. Null: Cairn's defaults (durable commits).
    /// </summary>
    public StorageOptions? Storage { get; init; }

    /// <summary>Throws when an option is out of range or the members do not include this node exactly once.</summary>
    public void Validate()
    {
        ArgumentException.ThrowIfNullOrEmpty(DirectoryPath);
        ArgumentNullException.ThrowIfNull(LocalEndPoint);
        ArgumentNullException.ThrowIfNull(Members);
        if (Members.Distinct().Count() != Members.Count)
            throw new ArgumentException($"A member is listed twice: {string.Join(", ", Members)}.", nameof(Members));
        if (!Members.Contains(LocalEndPoint))
            throw new ArgumentException($"The members ({string.Join(", ", Members)}) do not include this node ({LocalEndPoint}).", nameof(Members));
        ArgumentOutOfRangeException.ThrowIfLessThan(LowerElectionTimeout, 1);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(UpperElectionTimeout, LowerElectionTimeout);
        ArgumentOutOfRangeException.ThrowIfLessThan(SessionCapacity, 1);
    }
}
