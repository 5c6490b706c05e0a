using System.Diagnostics;
using System.Diagnostics.Metrics;
using Cairn.Diagnostics;
using Cairn.Extensions.Hosting;
using Cairn.Tests.Support;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Diagnostics.Metrics.Testing;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Cairn.Tests.Hosting;

/// <summary>
/// Cairn.Extensions.Hosting in a real generic host: options from configuration, validated at start; the
/// environment opened at start and closed (merger drained) at stop; metrics through the host's meter
/// factory; the health check's three states; the sample host run as a process of its own.
/// </summary>
public sealed class HostingTests
{
    [Fact]
    public async Task Options_come_from_configuration_and_the_environment_opens_at_start_and_closes_at_stop()
    {
        using var dir = new TestDirectory("hosting-config");
        var builder = Builder(new()
        {
            ["Cairn:Orders:Storage:DirectoryPath"] = dir.Path,
            ["Cairn:Orders:Storage:IoStatsCapacity"] = "64",
            ["Cairn:Orders:Storage:SyncInterval"] = "00:00:07",
        });
        builder.Services.AddCairn("orders", builder.Configuration.GetSection("Cairn:Orders"));
        using var host = builder.Build();
        var meters = host.Services.GetRequiredService<IMeterFactory>();
        using var commits = new MetricCollector<long>(meters, CairnMetrics.MeterName, CairnMetrics.Commits);

        await host.StartAsync();
        var env = host.Services.GetRequiredKeyedService<StorageEnvironment>("orders");
        Assert.Equal(dir.Path, env.DirectoryPath);
        Assert.Equal(64, env.IoStats.Capacity);
        await env.WriteAsync(0, static (tx, _) => tx.CreateTree("t").Put("k"u8, "v"u8));
        await host.StopAsync();

        Assert.Throws<ObjectDisposedException>(() => env.BeginRead());
        var counted = Assert.Single(commits.GetMeasurementSnapshot());
        Assert.Equal("orders", counted.Tags[CairnMetrics.EnvironmentTag]);
        using var reopened = StorageEnvironment.Open(new StorageOptions(dir.Path));
        Assert.Equal(0, reopened.LastCommittedTransactionId - reopened.LastSyncedTransactionId); // closed clean: nothing to replay
        using var tx = reopened.BeginRead();
        Assert.Equal("v"u8.ToArray(), tx.OpenTree("t").Get("k"u8));
    }

    [Fact]
    public async Task Stopping_the_host_commits_every_queued_operation_first()
    {
        using var dir = new TestDirectory("hosting-drain");
        var builder = Builder([]);
        builder.Services.AddCairn("orders", o => o.Storage = new StorageOptions(dir.Path));
        using var host = builder.Build();
        await host.StartAsync();
        var env = host.Services.GetRequiredKeyedService<StorageEnvironment>("orders");
        await env.WriteAsync(0, static (tx, _) => tx.CreateTree("t"));

        var writes = Enumerable.Range(0, 2000)
            .Select(i => env.WriteAsync(i, static (tx, k) => tx.OpenTree("t").Put(Bytes.Key(k), Bytes.Value(k, 50))).AsTask())
            .ToArray();
        await host.StopAsync();

        await Task.WhenAll(writes).WaitAsync(TimeSpan.FromMinutes(1));
        using var reopened = StorageEnvironment.Open(new StorageOptions(dir.Path));
        using var tx = reopened.BeginRead();
        Assert.Equal(2000, tx.OpenTree("t").Count);
    }

    [Theory]
    [InlineData(null, "Storage:DirectoryPath is required")]
    [InlineData("Storage:MaxJournalFileBytes=1000", "MaxJournalFileBytes")]
    [InlineData("ScratchDegradedFraction=1.5", "ScratchDegradedFraction")]
    public async Task A_bad_setting_stops_the_host_at_start_naming_the_environment_and_the_option(string? setting, string named)
    {
        using var dir = new TestDirectory("hosting-invalid");
        var values = new Dictionary<string, string?>();
        if (setting is not null)
        {
            values["Cairn:Orders:Storage:DirectoryPath"] = dir.Path;
            var (key, value) = (setting.Split('=')[0], setting.Split('=')[1]);
            values[$"Cairn:Orders:{key}"] = value;
        }
        var builder = Builder(values);
        builder.Services.AddCairn("orders", builder.Configuration.GetSection("Cairn:Orders"));
        using var host = builder.Build();

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Contains("'orders'", error.Message);
        Assert.Contains(named, error.Message);
        Assert.False(File.Exists(Path.Combine(dir.Path, StorageEnvironment.DataFileName)), "nothing is opened with a bad setting");
    }

    [Fact]
    public void A_name_is_registered_once()
    {
        var services = new ServiceCollection();
        services.AddCairn("orders", o => o.Storage = new StorageOptions("a"));

        var error = Assert.Throws<InvalidOperationException>(() => services.AddCairn("orders", o => o.Storage = new StorageOptions("b")));
        Assert.Contains("'orders'", error.Message);
    }

    [Fact]
    public async Task Several_environments_live_side_by_side_under_their_keys()
    {
        using var dir = new TestDirectory("hosting-two");
        var builder = Builder([]);
        builder.Services.AddCairn("orders", o => o.Storage = new StorageOptions(Path.Combine(dir.Path, "orders")));
        builder.Services.AddCairn("customers", o => o.Storage = new StorageOptions(Path.Combine(dir.Path, "customers")));
        using var host = builder.Build();
        await host.StartAsync();

        var orders = host.Services.GetRequiredKeyedService<StorageEnvironment>("orders");
        var customers = host.Services.GetRequiredKeyedService<StorageEnvironment>("customers");
        Assert.NotSame(orders, customers);
        Assert.EndsWith("customers", customers.DirectoryPath);
        await host.StopAsync();
    }

    [Fact]
    public async Task The_health_check_is_healthy_then_degraded_when_scratch_memory_nears_its_limit()
    {
        using var dir = new TestDirectory("hosting-health");
        using var host = await StartUnflushedWithHealthCheckAsync(dir, o =>
        {
            o.Storage = o.Storage! with { MaxScratchBytes = 64L << 20 };
            o.ScratchDegradedFraction = 0.01; // 671 KiB
        });
        var health = host.Services.GetRequiredService<HealthCheckService>();
        var env = host.Services.GetRequiredKeyedService<StorageEnvironment>("orders");

        var report = await health.CheckHealthAsync();
        Assert.Equal(HealthStatus.Healthy, report.Entries["cairn-orders"].Status);
        Assert.Contains("ready", report.Entries["cairn-orders"].Tags);

        await env.WriteAsync(0, static (tx, _) =>
        {
            var t = tx.CreateTree("t");
            for (int i = 0; i < 2000; i++)
                t.Put(Bytes.Key(i), Bytes.Value(i, 1000)); // about 2 MB of pages
        });
        report = await health.CheckHealthAsync();
        var entry = report.Entries["cairn-orders"];
        Assert.Equal(HealthStatus.Degraded, entry.Status);
        Assert.Contains("scratch memory", entry.Description);
        Assert.True((long)entry.Data["scratchBytes"] > 671_088);
        await host.StopAsync();
    }

    [Fact]
    public async Task The_health_check_reports_a_journal_grown_past_its_bound()
    {
        using var dir = new TestDirectory("hosting-journal");
        using var host = await StartUnflushedWithHealthCheckAsync(dir, o => o.JournalDegradedBytes = 4096);
        var env = host.Services.GetRequiredKeyedService<StorageEnvironment>("orders");
        await env.WriteAsync(0, static (tx, _) => tx.CreateTree("t").Put("k"u8, "v"u8));

        var entry = (await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync()).Entries["cairn-orders"];

        Assert.Equal(HealthStatus.Degraded, entry.Status);
        Assert.Contains("journal", entry.Description);
        await host.StopAsync();
    }

    [Fact]
    public async Task The_sample_host_runs_and_exits_cleanly()
    {
        using var dir = new TestDirectory("hosting-sample");
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Cairn.Samples.HostedOrders.dll"));
        start.ArgumentList.Add($"--Cairn:Orders:Storage:DirectoryPath={dir.Path}");
        start.ArgumentList.Add("--Orders:Seconds=1");
        using var process = Process.Start(start)!;
        var error = process.StandardError.ReadToEndAsync();
        string output = await process.StandardOutput.ReadToEndAsync();
        await process.WaitForExitAsync().WaitAsync(TimeSpan.FromMinutes(2));

        Assert.True(process.ExitCode == 0, $"exit {process.ExitCode}: {output} {await error}");
        Assert.Contains("(consistent), health never unhealthy", output);
        Assert.Contains("Closed environment", output);
    }

    /// <summary>A started host with environment "orders" that never flushes on its own (pages stay in scratch memory, journals on disk) and its health check.</summary>
    private static async Task<IHost> StartUnflushedWithHealthCheckAsync(TestDirectory dir, Action<CairnOptions> configure)
    {
        var builder = Builder([]);
        builder.Services.AddCairn("orders", o =>
        {
            o.Storage = new StorageOptions(dir.Path) { MaxFlushDelay = TimeSpan.FromHours(1), SyncInterval = TimeSpan.FromHours(1) };
            configure(o);
        });
        builder.Services.AddHealthChecks().AddCairnCheck("orders", tags: ["ready"]);
        var host = builder.Build();
        await host.StartAsync();
        return host;
    }

    private static HostApplicationBuilder Builder(Dictionary<string, string?> configuration)
    {
        var builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(configuration);
        builder.Services.AddMetrics();
        return builder;
    }
}
