using System.Net;
using Cairn.Cluster.Hosting;
using Cairn.Cluster.Tests.Nemesis;
using Cairn.Tests.Support;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Cairn.Cluster.Tests.Usable;

/// <summary><c>AddCairnCluster</c> in a generic host: options bound from configuration, validated at start, the node started and stopped with the host.</summary>
public sealed class HostingTests
{
    private const string Name = "orders";

    [Fact]
    public async Task A_node_bound_from_configuration_starts_with_the_host_serves_and_stops_with_it_keeping_its_writes()
    {
        using var directory = new TestDirectory("cluster-hosting");
        var listener = await SingleNode.BindAsync();
        var raft = listener.EndPoint.ToString()!;
        using var host = Host(Configuration(directory, raft, members: [raft], clientEndPoint: "127.0.0.1:0"), listener);

        await host.StartAsync();
        var node = host.Services.GetRequiredKeyedService<ClusterNode>(Name);
        await Eventually.HoldsAsync(() => node.IsLeader, () => $"the hosted node {node.LocalEndPoint} does not lead");
        var written = await node.WriteAsync(SingleNode.Put(1, "hosted", [1], [42]));
        Assert.Equal(listener.EndPoint, node.LocalEndPoint);
        var options = host.Services.GetRequiredService<IOptionsMonitor<CairnClusterOptions>>().Get(Name);
        Assert.Equal(1_000, options.Node!.LowerElectionTimeout);
        Assert.Equal(4_096, options.Node.SessionCapacity);
        Assert.Equal(TimeSpan.FromSeconds(3), options.Node.Storage!.SyncInterval);
        Assert.Equal(new IPEndPoint(IPAddress.Loopback, 0), options.ClientEndPoint);

        await host.StopAsync();
        Assert.Throws<ObjectDisposedException>(() => node.GetStatus());

        // Stopped cleanly: the same folder opens again as a node that holds the write.
        var again = await SingleNode.BindAsync();
        await using var restarted = await ClusterNode.StartAsync(SingleNode.Options(directory, again));
        Assert.Equal([42], await restarted.ReadAppliedAsync("hosted", [1], written.LogIndex, Eventually.Deadline()));
    }

    [Fact]
    public async Task A_node_whose_apply_fails_stops_the_host_with_the_fail_stop_exit_code()
    {
        using var directory = new TestDirectory("cluster-hosting-failstop");
        var listener = await SingleNode.BindAsync();
        var raft = listener.EndPoint.ToString()!;
        using var host = Host(Configuration(directory, raft, members: [raft]), listener);
        var stopping = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        host.Services.GetRequiredService<IHostApplicationLifetime>().ApplicationStopping.Register(() => stopping.TrySetResult());
        var exitCodeBefore = Environment.ExitCode;
        try
        {
            await host.StartAsync();
            var node = host.Services.GetRequiredKeyedService<ClusterNode>(Name);
            await Eventually.HoldsAsync(() => node.IsLeader, () => $"the hosted node {node.LocalEndPoint} does not lead");
            await node.WriteAsync(SingleNode.Put(1, "hosted", [1], [1]));

            node.EnvironmentForTesting.Dispose(); // the next apply throws, as a latched environment's does
            var write = node.WriteAsync(SingleNode.Put(2, "hosted", [1], [2]), Eventually.Deadline());

            await stopping.Task.WaitAsync(Eventually.Deadline());
            Assert.True(node.HasFailed);
            Assert.Equal(ClusterNodeFailedException.ProcessExitCode, Environment.ExitCode);
            // Its entry was appended and its apply failed: the node cannot say whether the cluster holds it.
            await Assert.ThrowsAsync<WriteOutcomeUnknownException>(() => write);
            await host.StopAsync();
        }
        finally
        {
            Environment.ExitCode = exitCodeBefore; // this process is the test host, not a node's
        }
    }

    [Fact]
    public async Task The_running_node_is_not_handed_out_before_the_host_starts_it()
    {
        using var directory = new TestDirectory("cluster-hosting-early");
        var listener = await SingleNode.BindAsync();
        var raft = listener.EndPoint.ToString()!;
        using var host = Host(Configuration(directory, raft, members: [raft]), listener);
        var refusal = Assert.Throws<InvalidOperationException>(() => host.Services.GetRequiredKeyedService<ClusterNode>(Name));
        Assert.Contains($"Cairn cluster node '{Name}' is not running", refusal.Message);
        await listener.DisposeAsync();
    }

    [Fact]
    public async Task Bad_options_stop_the_host_at_start_naming_the_node_and_the_option()
    {
        using var directory = new TestDirectory("cluster-hosting-bad");
        var listener = await SingleNode.BindAsync();
        var raft = listener.EndPoint.ToString()!;

        using (var host = Host(Configuration(directory, raft, members: ["127.0.0.1:1", "127.0.0.1:2"]), listener))
        {
            var failed = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());
            Assert.Contains($"Cairn cluster node '{Name}'", failed.Message);
            Assert.Contains("do not include this node", failed.Message);
        }

        using (var host = Host(new Dictionary<string, string?>(), listener))
        {
            var failed = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());
            Assert.Contains("Node (with DirectoryPath, LocalEndPoint and Members) is required", failed.Message);
        }

        using (var host = Host(Configuration(directory, "no-port-here", members: [raft]), listener))
        {
            var failed = await Assert.ThrowsAnyAsync<InvalidOperationException>(() => host.StartAsync());
            Assert.Contains("Node:LocalEndPoint", failed.Message);
        }

        Assert.False(Directory.Exists(directory.File("node")), "a refused node created its folder");
        await listener.DisposeAsync();
    }

    [Fact]
    public void A_name_is_registered_once()
    {
        var services = new ServiceCollection();
        services.AddCairnCluster(Name, _ => { });
        Assert.Contains($"named '{Name}' is already registered",
            Assert.Throws<InvalidOperationException>(() => services.AddCairnCluster(Name, _ => { })).Message);
    }

    private static Dictionary<string, string?> Configuration(TestDirectory directory, string localEndPoint, string[] members, string? clientEndPoint = null)
    {
        var settings = new Dictionary<string, string?>
        {
            ["Cluster:Node:DirectoryPath"] = directory.File("node"),
            ["Cluster:Node:LocalEndPoint"] = localEndPoint,
            ["Cluster:Node:LowerElectionTimeout"] = "1000",
            ["Cluster:Node:UpperElectionTimeout"] = "2000",
            ["Cluster:Node:SessionCapacity"] = "4096",
            ["Cluster:Node:Storage:SyncInterval"] = "00:00:03",
            ["Cluster:ClientEndPoint"] = clientEndPoint,
        };
        for (var i = 0; i < members.Length; i++)
            settings[$"Cluster:Node:Members:{i}"] = members[i];
        return settings;
    }

    /// <summary>A host with the node bound from <paramref name="settings"/>; the prebound Raft listener is added in code (a listener is no setting).</summary>
    private static IHost Host(Dictionary<string, string?> settings, PreboundListenerFactory listener)
    {
        var builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(settings);
        builder.Services.AddCairnCluster(Name, builder.Configuration.GetSection("Cluster"))
            .PostConfigure(options => options.Node = options.Node is { } node ? node with { Listener = listener } : null);
        return builder.Build();
    }
}
