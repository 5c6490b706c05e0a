using System.Diagnostics;
using Cairn.Reports;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Cairn.Samples.HostedOrders;

/// <summary>
/// Runs the clients for the configured time, checks the snapshot invariant and the environment's health
/// once a second, prints what was done, and stops the host (which closes the environment: queued orders
/// commit first). Exit code 1 if an invariant or the health check failed.
/// </summary>
internal sealed class OrderTaker(
    [FromKeyedServices(OrderBook.EnvironmentName)] StorageEnvironment env,
    HealthCheckService health,
    IOptions<OrderSettings> settings,
    IHostApplicationLifetime lifetime,
    ILogger<OrderTaker> logger) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        var (startCount, _) = OrderBook.Read(env);
        var until = Stopwatch.StartNew();
        var duration = TimeSpan.FromSeconds(settings.Value.Seconds);
        long placed = 0, sequence = startCount;
        var clients = Enumerable.Range(0, settings.Value.Clients).Select(c => Task.Run(async () =>
        {
            while (until.Elapsed < duration && !stoppingToken.IsCancellationRequested)
            {
                await OrderBook.PlaceAsync(env, $"client-{c}", Interlocked.Increment(ref sequence), stoppingToken);
                Interlocked.Increment(ref placed);
            }
        }, stoppingToken)).ToArray();

        bool healthy = true;
        while (!Task.WhenAll(clients).IsCompleted)
        {
            await Task.WhenAny(Task.WhenAll(clients), Task.Delay(1000, stoppingToken));
            var (count, orders) = OrderBook.Read(env);
            var report = await health.CheckHealthAsync(stoppingToken);
            healthy &= count == orders && report.Status != HealthStatus.Unhealthy;
            logger.LogInformation("{Placed} orders placed, snapshot: count {Count}, orders {Orders}; health {Status}",
                Interlocked.Read(ref placed), count, orders, report.Status);
        }
        await Task.WhenAll(clients);

        var (finalCount, finalOrders) = OrderBook.Read(env);
        bool consistent = finalCount == finalOrders && finalCount == startCount + placed;
        Console.WriteLine($"placed {placed:N0} orders from {settings.Value.Clients} clients in {until.Elapsed.TotalSeconds:F1} s " +
                          $"({placed / until.Elapsed.TotalSeconds:N0}/s); the environment holds {finalCount:N0} " +
                          $"({(consistent ? "consistent" : "INCONSISTENT")}), health {(healthy ? "never unhealthy" : "UNHEALTHY")}");
        Console.WriteLine(env.MergerStatistics.Snapshot().Format(env.IoStats).TrimEnd());
        Environment.ExitCode = consistent && healthy ? 0 : 1;
        lifetime.StopApplication();
    }
}
