using System.Diagnostics.Metrics;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Cairn.Cluster.Hosting;

/// <summary>
/// Runs one registered cluster node for its host: starts it (its environment opened, its log replayed, its Raft member
/// started) and its client server when the host starts, and stops them when the host stops: the server first (no new
/// requests; a write it stops waiting for is reported outcome-unknown to its client, which retries), then the node
/// (Raft member, log, environment, which syncs).
/// </summary>
internal sealed class ClusterNodeLifetime(
    string name, IOptionsMonitor<CairnClusterOptions> options, ClusterNodeHandle handle, ILoggerFactory? loggers, IMeterFactory? meters,
    IHostApplicationLifetime? application)
    : IHostedService
{

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        var configured = options.Get(name);
        var node = configured.Node ?? throw new InvalidOperationException(CairnClusterOptionsValidator.MissingNode(name));
        var template = node.Storage ?? new StorageOptions(node.DirectoryPath);
        node = node with
        {
            Storage = template with
            {
                Name = template.Name ?? name,
                LoggerFactory = template.LoggerFactory ?? loggers,
                MeterFactory = template.MeterFactory ?? meters,
            },
        };
        var started = await ClusterNode.StartAsync(node, cancellationToken).ConfigureAwait(false);
        try
        {
            var server = configured.ClientEndPoint is { } endPoint ? ClusterNodeServer.Start(started, endPoint) : null;
            handle.Started(started, server);
        }
        catch
        {
            await started.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        _ = StopHostOnFailureAsync(started);
        loggers?.CreateLogger<ClusterNodeLifetime>().LogInformation("Cairn cluster node '{Name}' started at {Node}, clients at {Clients}",
            name, node.LocalEndPoint, configured.ClientEndPoint?.ToString() ?? "(none)");
    }

    public Task StopAsync(CancellationToken cancellationToken) => handle.StopAsync().AsTask();

    /// <summary>
    /// A node that stopped itself cannot go on correctly in this process: the host stops with a failure exit code, so
    /// systemd (Restart=on-failure), Kubernetes or any supervisor starts it again, and the restart replays its log.
    /// </summary>
    private async Task StopHostOnFailureAsync(ClusterNode node)
    {
        var failure = await node.Failure.ConfigureAwait(false);
        loggers?.CreateLogger<ClusterNodeLifetime>().LogCritical(failure, "Cairn cluster node '{Name}' failed and stopped; stopping the host", name);
        Environment.ExitCode = ClusterNodeFailedException.ProcessExitCode;
        application?.StopApplication();
    }
}
