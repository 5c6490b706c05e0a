using System.Net;
using Cairn.Cluster.Membership;
using Cairn.Cluster.Metrics;
using Cairn.Cluster.Node;
using Cairn.Cluster.Snapshots;
using Cairn.Cluster.StateMachine;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Cairn.Cluster;

/// <summary>
/// One member of a replicated environment: a Cairn environment (the state machine), DotNext's
/// <see cref="WriteAheadLog"/> (the Raft log) and a DotNext <see cref="RaftCluster"/> member over its custom
/// transport (listener and dialler the caller may supply). Writes go through <see cref="WriteAsync"/> on the
/// leader; reads are linearizable (<see cref="ReadAsync"/>) or bounded-stale (<see cref="ReadAppliedAsync"/>) on any
/// member. The environment is written only by the log's applier; this type gives read access only.
/// </summary>
public sealed partial class ClusterNode : IClusterNodeConnection, IAsyncDisposable
{
    private readonly EnvironmentSlot environment;
    private readonly CairnStateMachine stateMachine;
    private readonly FailStopStateMachine applier; // the state machine as the log drives it; its Failure is the node's fail-stop
    private readonly FlushingRaftLog log; // typed as ours, so a flush or commit from this class takes the flusher's turn
    private readonly RaftCluster raft;
    private readonly MembershipStore membership;
    private readonly SocketDialler? ownDialler;
    private readonly ClusterNodeMetrics metrics;
    private int disposed;
    private long readNoOpTerm; // the highest term whose read no-op this node saw committed; only rises (RaiseReadNoOpTerm)

    private ClusterNode(ClusterNodeOptions options, EnvironmentSlot environment, CairnStateMachine stateMachine,
        FailStopStateMachine applier, FlushingRaftLog log, RaftCluster raft, MembershipStore membership, SocketDialler? ownDialler, ClusterNodeMetrics metrics)
    {
        LocalEndPoint = options.LocalEndPoint;
        this.environment = environment;
        this.stateMachine = stateMachine;
        this.log = log;
        this.raft = raft;
        this.membership = membership;
        this.ownDialler = ownDialler;
        this.metrics = metrics;
        this.applier = applier;
        batcher = new WriteBatcher(options.MaxBatchCommands, options.MaxBatchBytes, ReplicateBatchAsync);
        Failure = StopOnFailureAsync();
    }

    /// <summary>This node's address and identity.</summary>
    public EndPoint LocalEndPoint { get; }

    /// <summary>The leader this node follows (itself, if it leads), or null while it knows none.</summary>
    public EndPoint? Leader => raft.Leader?.EndPoint;

    /// <summary>Whether this node leads now (it may learn otherwise at any moment).</summary>
    public bool IsLeader => raft.Leader is { IsRemote: false };

    /// <summary>The node's current Raft term.</summary>
    public long Term => raft.Term;

    /// <summary>The last log index this node knows committed.</summary>
    public long CommitIndex => log.LastCommittedEntryIndex;

    /// <summary>The last log index whose effects this node's environment holds.</summary>
    public long AppliedIndex => stateMachine.AppliedIndex;

    /// <summary>The log index up to which this node's log may be dropped: its environment is its snapshot up to there (0: none yet).</summary>
    public long SnapshotIndex => stateMachine.SnapshotIndex;

    /// <summary>Leader snapshots this node installed since it started (for tests and diagnostics).</summary>
    internal long SnapshotsInstalled => stateMachine.SnapshotsInstalled;

    /// <summary>
    /// Ends a snapshot install a crash interrupted, opens the node's environment, replays the log after its snapshot
    /// point into it (entries the environment already holds are skipped) and starts its Raft member.
    /// </summary>
    public static async Task<ClusterNode> StartAsync(ClusterNodeOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        var folders = new NodeFolders(options.DirectoryPath) { CrashHook = options.InstallCrashHook };
        folders.Recover();
        StorageEnvironment Open(string path) => StorageEnvironment.Open(options.Storage is { } template ? template with { DirectoryPath = path } : new StorageOptions(path));
        var membership = MembershipStore.Open(options.DirectoryPath, options.Members);
        EnvironmentSlot environment;
        try
        {
            environment = new EnvironmentSlot(Open(folders.Data));
        }
        catch
        {
            membership.Dispose();
            throw;
        }

        FlushingRaftLog? log = null;
        RaftCluster? raft = null;
        SocketDialler? ownDialler = null;
        ClusterNodeMetrics? metrics = null;
        try
        {
            var stateMachine = new CairnStateMachine(environment, options.SessionCapacity, options.SnapshotInterval,
                new SnapshotInstaller(folders, environment, Open));
            var applier = new FailStopStateMachine(stateMachine, () => environment.HoldsEnvironment);
            // DotNext 6.12 checkpoints and flushes on every commit (its FlushInterval and FlushOnCommit are obsolete and
            // fixed); FlushingRaftLog also flushes what a follower appends before it answers, so a committed entry is
            // on a majority's disks.
            log = new FlushingRaftLog(new WriteAheadLog.Options
            {
                Location = Path.Combine(options.DirectoryPath, "raft"),
            }, applier)
            {
                // Set before the replay, so a configuration entry committed before a crash reaches the store again
                // (it refuses versions it holds) instead of the state machine.
                ConfigurationStorage = membership,
            };
            await log.InitializeAsync(cancellationToken).ConfigureAwait(false);
            IConnectionFactory dialler = options.Dialler ?? (ownDialler = new SocketDialler());
            raft = new RaftCluster(Configure(options, dialler, membership)) { AuditTrail = log };
            metrics = new ClusterNodeMetrics(raft, options.LocalEndPoint, options.Storage?.MeterFactory);
            await raft.StartAsync(cancellationToken).ConfigureAwait(false);
            var node = new ClusterNode(options, environment, stateMachine, applier, log, raft, membership, ownDialler, metrics);
            metrics.Observe(node);
            return node;
        }
        catch
        {
            metrics?.Dispose();
            if (raft is not null)
                await raft.DisposeAsync().ConfigureAwait(false);
            if (log is not null)
                await log.DisposeAsync().ConfigureAwait(false);
            ownDialler?.Dispose();
            await environment.DisposeAsync().ConfigureAwait(false);
            membership.Dispose();
            throw;
        }
    }

    /// <summary>Checks the node's environment (<see cref="StorageEnvironment.Verify"/>).</summary>
    public VerificationReport Verify() => environment.Current.Verify();

    /// <summary>A read transaction on the node's environment as it is applied now (no barrier: see <see cref="ReadAsync"/>).</summary>
    public ReadTransaction BeginLocalRead() => environment.BeginRead();

    /// <summary>Stops the Raft member, then closes the log and the environment.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref disposed, 1) != 0)
            return;
        metrics.Dispose();
        await raft.StopAsync().ConfigureAwait(false);
        await raft.DisposeAsync().ConfigureAwait(false);
        await log.DisposeAsync().ConfigureAwait(false);
        ownDialler?.Dispose();
        await environment.DisposeAsync().ConfigureAwait(false);
        membership.Dispose();
    }

    private static RaftCluster.CustomTransportConfiguration Configure(ClusterNodeOptions options, IConnectionFactory dialler, MembershipStore membership)
    {
        // The environment's logger takes the Raft member's logs too (elections, members unavailable, transport
        // faults): one option, and a node's storage and consensus events in one place.
        var loggers = options.Storage?.LoggerFactory ?? NullLoggerFactory.Instance;
        var listener = options.Listener
            ?? new SocketTransportFactory(Options.Create(new SocketTransportOptions()), loggers);
        return new RaftCluster.CustomTransportConfiguration(options.LocalEndPoint, listener, dialler)
        {
            // The membership is the store's: the founding members, or none for a node waiting to be added (it
            // stands by until a configuration naming it commits); never a cluster of one bootstrapped alone.
            ColdStart = false,
            ConfigurationStorage = membership,
            LowerElectionTimeout = options.LowerElectionTimeout,
            UpperElectionTimeout = options.UpperElectionTimeout,
            LoggerFactory = loggers,
        };
    }
}
