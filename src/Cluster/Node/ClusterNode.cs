using System.Net;
using Cairn.Cluster.Metrics;
using Cairn.Cluster.Node;
using Cairn.Cluster.StateMachine;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.Membership;
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
    private readonly StorageEnvironment environment;
    private readonly CairnStateMachine stateMachine;
    private readonly WriteAheadLog log;
    private readonly RaftCluster raft;
    private readonly SocketDialler? ownDialler;
    private readonly ClusterNodeMetrics metrics;
    private int disposed;

    private ClusterNode(ClusterNodeOptions options, StorageEnvironment environment, CairnStateMachine stateMachine,
        WriteAheadLog log, RaftCluster raft, SocketDialler? ownDialler, ClusterNodeMetrics metrics)
    {
        LocalEndPoint = options.LocalEndPoint;
        this.environment = environment;
        this.stateMachine = stateMachine;
        this.log = log;
        this.raft = raft;
        this.ownDialler = ownDialler;
        this.metrics = metrics;
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

    /// <summary>
    /// Opens the node's environment, replays its log into it (entries the environment already holds are skipped) and
    /// starts its Raft member.
    /// </summary>
    public static async Task<ClusterNode> StartAsync(ClusterNodeOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        var dataPath = Path.Combine(options.DirectoryPath, "data");
        var storage = options.Storage is { } template ? template with { DirectoryPath = dataPath } : new StorageOptions(dataPath);
        var environment = StorageEnvironment.Open(storage);
        WriteAheadLog? log = null;
        RaftCluster? raft = null;
        SocketDialler? ownDialler = null;
        ClusterNodeMetrics? metrics = null;
        try
        {
            var stateMachine = new CairnStateMachine(environment, options.SessionCapacity);
            log = new WriteAheadLog(new WriteAheadLog.Options
            {
                // DotNext 6.12 checkpoints and flushes on every commit (its FlushInterval and FlushOnCommit are obsolete and fixed).
                Location = Path.Combine(options.DirectoryPath, "raft"),
            }, stateMachine);
            await log.InitializeAsync(cancellationToken).ConfigureAwait(false);
            IConnectionFactory dialler = options.Dialler ?? (ownDialler = new SocketDialler());
            raft = new RaftCluster(Configure(options, dialler)) { AuditTrail = log };
            metrics = new ClusterNodeMetrics(raft, options.LocalEndPoint, options.Storage?.MeterFactory);
            await raft.StartAsync(cancellationToken).ConfigureAwait(false);
            var node = new ClusterNode(options, environment, stateMachine, log, raft, ownDialler, metrics);
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
            environment.Dispose();
            throw;
        }
    }

    /// <summary>Checks the node's environment (<see cref="StorageEnvironment.Verify"/>).</summary>
    public VerificationReport Verify() => environment.Verify();

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
    }

    private static RaftCluster.CustomTransportConfiguration Configure(ClusterNodeOptions options, IConnectionFactory dialler)
    {
        var listener = options.Listener
            ?? new SocketTransportFactory(Options.Create(new SocketTransportOptions()), NullLoggerFactory.Instance);
        var configuration = new RaftCluster.CustomTransportConfiguration(options.LocalEndPoint, listener, dialler)
        {
            // A fixed membership: every node starts knowing all of them, none bootstraps alone.
            ColdStart = false,
            ConfigurationStorage = null,
            LowerElectionTimeout = options.LowerElectionTimeout,
            UpperElectionTimeout = options.UpperElectionTimeout,
        };
        // Left null above, DotNext makes an in-memory configuration storage, seeded here before the node starts.
        var storage = configuration.ConfigurationStorage as InMemoryClusterConfigurationStorage<EndPoint>
            ?? throw new NotSupportedException("This DotNext version gives no in-memory configuration storage for null; Cairn.Cluster needs one.");
        var initial = storage.CreateInitialConfigurationBuilder();
        foreach (var member in options.Members)
            initial.Add(member);
        initial.Build();
        return configuration;
    }
}
