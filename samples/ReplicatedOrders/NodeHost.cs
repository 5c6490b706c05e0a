using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Cairn.Samples.ReplicatedOrders;

/// <summary>
/// One node process: a generic host with <c>AddCairnCluster</c>, its options given as configuration (the shape an
/// appsettings.json would have), and its process id in a pid file for <c>kill-leader</c>. It stops gracefully on
/// Ctrl+C, SIGTERM, or when its standard input closes (how the demo stops it).
/// </summary>
internal static class NodeHost
{
    public const string Name = "orders";

    public static async Task<int> RunAsync(SampleArguments arguments)
    {
        if (arguments.NodeIndex is not { } index)
            throw new SampleUsageException("node needs its index: node 0, node 1 or node 2");
        var layout = ClusterLayout.LoadOrCreate(arguments.DataPath);
        var settings = new Dictionary<string, string?>
        {
            ["Cluster:Node:DirectoryPath"] = ClusterLayout.NodePath(arguments.DataPath, index),
            ["Cluster:Node:LocalEndPoint"] = layout.Raft(index).ToString(),
            // Longer than DotNext's 150-300 ms default, so three nodes and a writer on a busy laptop do not keep
            // starting elections; a failover still takes about a second.
            ["Cluster:Node:LowerElectionTimeout"] = "400",
            ["Cluster:Node:UpperElectionTimeout"] = "800",
            ["Cluster:ClientEndPoint"] = layout.Client(index).ToString(),
        };
        for (var i = 0; i < ClusterLayout.NodeCount; i++)
            settings[$"Cluster:Node:Members:{i}"] = layout.Raft(i).ToString();

        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(settings);
        builder.Logging.AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Warning)
            .AddFilter("Cairn.Cluster.Hosting", LogLevel.Information);
        builder.Services.AddCairnCluster(Name, builder.Configuration.GetSection("Cluster"));
        builder.Services.AddHostedService<StopWhenInputCloses>();
        using var host = builder.Build();

        await File.WriteAllTextAsync(ClusterLayout.PidFile(arguments.DataPath, index), Environment.ProcessId.ToString());
        await host.StartAsync();
        Console.WriteLine($"node {index} ready: Raft {layout.Raft(index)}, clients {layout.Client(index)}, pid {Environment.ProcessId}");
        await host.WaitForShutdownAsync();
        Console.WriteLine($"node {index} stopped");
        return 0;
    }

    /// <summary>Stops the host when standard input ends, if it is redirected (a terminal's Ctrl+C works as usual).</summary>
    private sealed class StopWhenInputCloses(IHostApplicationLifetime lifetime) : IHostedService
    {
        public Task StartAsync(CancellationToken cancellationToken)
        {
            if (Console.IsInputRedirected)
                new Thread(() =>
                {
                    while (Console.In.ReadLine() is not null)
                    {
                    }

                    lifetime.StopApplication();
                }) { IsBackground = true, Name = "stop when input closes" }.Start();
            return Task.CompletedTask;
        }

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
