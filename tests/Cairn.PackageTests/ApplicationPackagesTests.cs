using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text.Json;

namespace Cairn.PackageTests;

/// <summary>
/// The packages beside the engine as a user gets them, in one application outside the repository that restores them by
/// name from the local feed: a generic host with <c>Cairn.Extensions.Hosting</c> (options bound from configuration,
/// the environment opened and closed by the host, its health check), <c>Cairn.Reports</c> rendering that environment's
/// I/O statistics (text, JSON, HTML) and its merger's report, and a <c>Cairn.Stress</c> campaign (the application is
/// its own child). Then the tool <c>Cairn.Cli</c>, installed from the same feed, looks at what the application left.
/// What each wrote is read back here, not only its exit code.
/// </summary>
[Collection(PackageCollection.Name)]
public sealed class ApplicationPackagesTests(PackedCairn packed)
{
    /// <summary>
    /// Every package the repository ships has a program in the package tests that restores it by name and runs it
    /// (here, in PackageTests, and Cairn.Cluster in ClusterPackageTests).
    /// </summary>
    public static readonly string[] PackagesRunHere = ["Cairn", "Cairn.Cli", "Cairn.Cluster", "Cairn.Extensions.Hosting", "Cairn.Reports", "Cairn.Stress"];

    private const string Program = """
        using System.Diagnostics;
        using System.Reflection;
        using System.Text;
        using Cairn;
        using Cairn.Diagnostics;
        using Cairn.Reports;
        using Cairn.Stress;
        using Microsoft.Extensions.Configuration;
        using Microsoft.Extensions.DependencyInjection;
        using Microsoft.Extensions.Diagnostics.HealthChecks;
        using Microsoft.Extensions.Hosting;

        if (args is ["stress-child", .. var childArguments])
            return StressChild.Run(childArguments);

        string root = args[0];
        string orders = Path.Combine(root, "orders");

        // Cairn.Extensions.Hosting: the environment's options from configuration; the host opens and closes it.
        var builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings());
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Cairn:Orders:Storage:DirectoryPath"] = orders,
            ["Cairn:Orders:Storage:IoStatsCapacity"] = "64",
        });
        builder.Services.AddCairn("Orders", builder.Configuration.GetSection("Cairn:Orders"));
        builder.Services.AddHealthChecks().AddCairnCheck("Orders");
        using (var host = builder.Build())
        {
            await host.StartAsync();
            var env = host.Services.GetRequiredKeyedService<StorageEnvironment>("Orders");
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("orders");
                for (int i = 0; i < 100; i++)
                    tree.Put(Encoding.UTF8.GetBytes($"order-{i:D3}"), Encoding.UTF8.GetBytes($"qty {i}"));
                tx.Commit();
            }
            await env.WriteAsync(0, static (tx, _) => tx.OpenTree("orders").Put("order-100"u8, "qty 100"u8));
            using (var read = env.BeginRead())
            {
                var tree = read.OpenTree("orders");
                Console.WriteLine($"hosting: count={tree.Count} order-042={Encoding.UTF8.GetString(tree.Get("order-042"u8)!)} io-stats capacity={env.IoStats.Capacity}");
            }
            var health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
            Console.WriteLine($"health: {health.Status} ({string.Join(", ", health.Entries.Keys)})");

            // Cairn.Reports: the host's environment's I/O statistics and merger, rendered.
            File.WriteAllText(Path.Combine(root, "io-stats.txt"), env.IoStats.FormatSummary());
            using (var json = File.Create(Path.Combine(root, "io-stats.json")))
                env.IoStats.WriteJson(json);
            using (var page = File.Create(Path.Combine(root, "io-stats.html")))
                env.IoStats.WriteHtml(page, "orders of the package test");
            IoStats saved;
            using (var json = File.OpenRead(Path.Combine(root, "io-stats.json")))
                saved = IoStatsJson.ReadJson(json);
            Console.WriteLine($"reports: read back {saved.TotalRecorded} recorded, {saved.Summarize().JournalWrite.Count} journal writes");
            Console.WriteLine(env.MergerStatistics.Snapshot().Format(env.IoStats));
            await host.StopAsync();
        }
        // The host closed it (lock released, everything durable): it opens here.
        using (var env = StorageEnvironment.Open(new StorageOptions(orders)))
        using (var read = env.BeginRead())
            Console.WriteLine($"reopened: count={read.OpenTree("orders").Count}");

        // Cairn.Stress: one kill of a child (this program again), then the campaign reopens and checks.
        string self = Assembly.GetEntryAssembly()!.Location;
        var campaign = new StressCampaign(new StressOptions(Path.Combine(root, "stress"), childArguments =>
        {
            var start = new ProcessStartInfo(Environment.ProcessPath!);
            start.ArgumentList.Add(self);
            start.ArgumentList.Add("stress-child");
            foreach (var argument in childArguments)
                start.ArgumentList.Add(argument);
            return start;
        })
        {
            Seed = 17,
            Kills = 1,
            Callers = 2,
            CheckFraction = 1,
        });
        var report = await campaign.RunAsync();
        Console.Write(report.Format());
        return report.Succeeded ? 0 : 1;
        """;

    [Fact]
    public void Every_package_the_repository_ships_is_packed_and_run_here()
    {
        // The packable projects under src/, each packed into the feed (the fixture fails if one is missing there).
        Assert.Equal(PackagesRunHere, packed.Packages.Keys.Order(StringComparer.Ordinal));
    }

    [Fact]
    public void An_application_restores_reports_hosting_and_stress_by_name_and_the_tool_reads_what_it_wrote()
    {
        using var consumer = new Consumer(packed, Program, "",
            ("Cairn.Extensions.Hosting", packed.Version), ("Cairn.Reports", packed.Version), ("Cairn.Stress", packed.Version),
            ("Microsoft.Extensions.Hosting", packed.PinnedVersion("Microsoft.Extensions.Hosting")));
        var data = Path.Combine(packed.WorkDirectory, "application");
        Directory.CreateDirectory(data);

        consumer.Dotnet("restore");
        consumer.Dotnet("build", "--no-restore", "-c", "Release");
        // Each Cairn package restored (Cairn itself through the others' dependencies) is the one packed here, byte for byte.
        foreach (var id in new[] { "Cairn", "Cairn.Extensions.Hosting", "Cairn.Reports", "Cairn.Stress" })
            Assert.Equal(Convert.ToBase64String(SHA512.HashData(File.ReadAllBytes(packed.Packages[id]))),
                File.ReadAllText(Path.Combine(consumer.Restored(id, packed.Version), $"{id.ToLowerInvariant()}.{packed.Version.ToLowerInvariant()}.nupkg.sha512")).Trim());

        var run = Tool.Run("dotnet", [Path.Combine(consumer.Directory, "bin", "Release", "net10.0", "Consumer.dll"), data], consumer.Directory,
            TimeSpan.FromMinutes(5), consumer.Environment());

        // Hosting: the configured capacity reached the engine; the writes read back; the health check ran; the host closed it.
        Assert.Contains("hosting: count=101 order-042=qty 42 io-stats capacity=64", run.Output);
        Assert.Contains("health: Healthy (cairn-Orders)", run.Output);
        Assert.Contains("reopened: count=101", run.Output);
        // Reports: what the application rendered.
        using var document = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(data, "io-stats.json")));
        var json = document.RootElement;
        Assert.Equal(64, json.GetProperty("capacity").GetInt32());
        long recorded = json.GetProperty("totalRecorded").GetInt64();
        int journalWrites = json.GetProperty("summary").GetProperty("journalWrite").GetProperty("count").GetInt32();
        Assert.True(journalWrites >= 2, $"two commits, {journalWrites} journal writes");
        Assert.InRange(json.GetProperty("operations").GetArrayLength(), journalWrites, 64);
        Assert.Contains(json.GetProperty("operations").EnumerateArray(), o => o.GetProperty("kind").GetString() == "journalWrite"
            && o.GetProperty("file").GetString()!.StartsWith(Path.Combine(data, "orders"), StringComparison.Ordinal));
        Assert.Contains($"reports: read back {recorded} recorded, {journalWrites} journal writes", run.Output);
        string html = File.ReadAllText(Path.Combine(data, "io-stats.html"));
        Assert.StartsWith("<!DOCTYPE html>", html, StringComparison.OrdinalIgnoreCase);
        Assert.Contains("orders of the package test", html);
        Assert.Contains("<svg", html);
        Assert.Contains("journal", File.ReadAllText(Path.Combine(data, "io-stats.txt")));
        Assert.Contains("merger: 1 operations in 1 transactions", run.Output);
        Assert.Contains("recent journal writes of merged transactions: 1,", run.Output);
        // Stress: a campaign through the package, its child this application.
        Assert.Contains("stress campaign passed: seed 17", run.Output);
        Assert.Contains("kills: 1 ", run.Output);
        Assert.Contains("lost 0 · half-applied 0", run.Output);

        TheToolReads(consumer, data, recorded);
    }

    /// <summary>
    /// The tool installed from the same feed (a configuration whose only source is that feed: a tool carries everything
    /// it runs) looks at the environment the application closed and at the statistics it saved.
    /// </summary>
    private void TheToolReads(Consumer consumer, string data, long recorded)
    {
        string config = Path.Combine(packed.WorkDirectory, "tool-nuget.config");
        File.WriteAllText(config, Consumer.NuGetConfig(packed.FeedDirectory, onlyTheFeed: true));
        string tools = Path.Combine(packed.WorkDirectory, "tools");
        Tool.Run("dotnet", ["tool", "install", "Cairn.Cli", "--version", packed.Version, "--tool-path", tools, "--configfile", config],
            data, TimeSpan.FromMinutes(5), consumer.Environment());
        // The installed tool's launcher finds the runtime this test runs on.
        var environment = consumer.Environment(("DOTNET_ROOT", Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."))));
        string cairn = Path.Combine(tools, "cairn");
        string orders = Path.Combine(data, "orders");

        Assert.Contains("cairn: look at Cairn storage environments", Tool.Run(cairn, ["--help"], data, TimeSpan.FromMinutes(1), environment).Output);
        var info = Tool.Run(cairn, ["info", orders], data, TimeSpan.FromMinutes(1), environment).Output;
        Assert.Contains($"environment {orders}", info);
        Assert.Contains("trees (1)", info);
        Assert.Contains($"ok: {orders}", Tool.Run(cairn, ["verify", orders], data, TimeSpan.FromMinutes(1), environment).Output);
        var stats = Tool.Run(cairn, ["iostats", Path.Combine(data, "io-stats.json"), "--json"], data, TimeSpan.FromMinutes(1), environment).Output;
        using var document = JsonDocument.Parse(stats[stats.IndexOf('{')..]);
        var json = document.RootElement;
        Assert.Equal(recorded, json.GetProperty("totalRecorded").GetInt64());
        Assert.Equal(64, json.GetProperty("capacity").GetInt32());
    }
}
