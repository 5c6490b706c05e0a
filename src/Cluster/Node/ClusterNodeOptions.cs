using System.Net;
using Cairn.Cluster.Membership;
using Microsoft.AspNetCore.Connections;

namespace Cairn.Cluster;

/// <summary>
/// One node of a replicated environment: where it keeps its data, who it is, who the members are, and (optionally)
/// how it listens and dials. The founding members are each given the same <see cref="Members"/> list; a node added
/// later is given none, and a leader adds it (<see cref="ClusterNode.AddMemberAsync"/>).
/// </summary>
public sealed record ClusterNodeOptions
{
    /// <summary>
    /// The node's folder: its Cairn environment in <c>data/</c>, its Raft log in <c>raft/</c> (and, while a snapshot
    /// installs, <c>data.install/</c>, <c>data.retired/</c> and <c>install.ready</c>).
    /// </summary>
    public required string DirectoryPath { get; init; }

    /// <summary>The address this node listens on, which is also its identity in every member's list.</summary>
    public required EndPoint LocalEndPoint { get; init; }

    /// <summary>
    /// For a node's first start: the founding members' addresses, this node's included, the same list on each; or
    /// empty for a node that joins a running cluster (it waits, not voting, until a leader adds it). Used only while
    /// the node's folder holds no membership yet: from then on the membership is the one the cluster committed,
    /// kept in the node's <c>members</c> file, and this list is not read.
    /// </summary>
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

    /// <summary>
    /// The shortest election timeout, in milliseconds: how long a follower waits without hearing from a leader before
    /// it stands. With the default 150-300 ms a leader's crash is answered by a new leader in about 0.2-0.5 s.
    /// </summary>
    public int LowerElectionTimeout { get; init; } = DefaultLowerElectionTimeout;

    /// <summary>The longest election timeout, in milliseconds; each node draws its timeout between the two.</summary>
    public int UpperElectionTimeout { get; init; } = DefaultUpperElectionTimeout;

    /// <summary>The default <see cref="LowerElectionTimeout"/>: 150 ms (Raft's and DotNext's recommendation).</summary>
    public const int DefaultLowerElectionTimeout = 150;

    /// <summary>The default <see cref="UpperElectionTimeout"/>: 300 ms.</summary>
    public const int DefaultUpperElectionTimeout = 300;

    /// <summary>How many client sessions the dedup table keeps before it evicts the least recently used.</summary>
    public int SessionCapacity { get; init; } = 65_536;

    /// <summary>
    /// Log entries between two snapshot points (0: never). Every this many entries the node's snapshot point moves
    /// to the entry one interval back; DotNext then drops its log up to the point, replays only the entries after it
    /// at a restart, and sends a follower that needs an earlier entry a backup stream of the environment instead. So
    /// the log keeps one to two intervals of entries, and a follower up to one interval behind catches up from the log.
    /// Give every member the same value: the points are kept in the environment, whose dump is then the same on all.
    /// </summary>
    public long SnapshotInterval { get; init; } = DefaultSnapshotInterval;

    /// <summary>The default <see cref="SnapshotInterval"/>: 100,000 entries (tens of MB of log for small commands).</summary>
    public const long DefaultSnapshotInterval = 100_000;

    /// <summary>
    /// The most commands the leader puts in one Raft entry. While an entry is being replicated, new writes queue; the
    /// next entry carries all of them up to this count (and <see cref="MaxBatchBytes"/>), so the log flushes, the
    /// round trip and the apply transaction are paid once per round. 1 sends each command in its own entry.
    /// </summary>
    public int MaxBatchCommands { get; init; } = 1024;

    /// <summary>
    /// The most command bytes (as encoded: id, tree name, keys, values) the leader puts in one Raft entry; a command
    /// larger than this goes in an entry of its own. Bounds an entry's size, so a follower's append and a slow
    /// round stay bounded too.
    /// </summary>
    public int MaxBatchBytes { get; init; } = 1 << 20;

    /// <summary>A test's stand-in for a crash at one step of a snapshot install's folder swap.</summary>
    internal Action<Snapshots.SwapStep>? InstallCrashHook { get; init; }

    /// <summary>
    /// Settings for the node's Cairn environment; its <see cref="StorageOptions.DirectoryPath"/> is replaced by the
    /// node's <c>data/</c> folder. Null: Cairn's defaults (durable commits). Its <see cref="StorageOptions.LoggerFactory"/>
    /// also takes the node's Raft logs (elections, unavailable members, transport faults).
    /// </summary>
    public StorageOptions? Storage { get; init; }

    /// <summary>Throws when an option is out of range, or the founding members are given but do not include this node exactly once.</summary>
    public void Validate()
    {
        ArgumentException.ThrowIfNullOrEmpty(DirectoryPath);
        ArgumentNullException.ThrowIfNull(LocalEndPoint);
        ArgumentNullException.ThrowIfNull(Members);
        if (Members.Distinct().Count() != Members.Count)
            throw new ArgumentException($"A member is listed twice: {string.Join(", ", Members)}.", nameof(Members));
        MembershipCodec.CheckEncodable(LocalEndPoint);
        foreach (var member in Members)
            MembershipCodec.CheckEncodable(member);
        if (Members.Count > 0 && !Members.Contains(LocalEndPoint))
            throw new ArgumentException($"The members ({string.Join(", ", Members)}) do not include this node ({LocalEndPoint}).", nameof(Members));
        ArgumentOutOfRangeException.ThrowIfLessThan(LowerElectionTimeout, 1);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(UpperElectionTimeout, LowerElectionTimeout);
        ArgumentOutOfRangeException.ThrowIfLessThan(SessionCapacity, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(SnapshotInterval);
        ArgumentOutOfRangeException.ThrowIfLessThan(MaxBatchCommands, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(MaxBatchBytes, 1);
    }
}
