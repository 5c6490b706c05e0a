using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;

namespace Cairn.Tests.Hosting;

/// <summary>The health check of an environment an I/O error has latched, and a host that still stops.</summary>
[Collection(NativeFaultCollection.Name)]
public sealed class HostingFaultTests : IDisposable
{
    private const int EIO = 5;

    public void Dispose() => PalFaultInjection.Disarm();

    [Fact]
    public async Task A_failed_environment_is_unhealthy_with_its_error_and_the_host_still_stops()
    {
        using var dir = new TestDirectory("hosting-failed");
        var builder = Host.CreateEmptyApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddCairn("orders", o => o.Storage = new StorageOptions(dir.Path));
        builder.Services.AddHealthChecks().AddCairnCheck("orders");
        using var host = builder.Build();
        await host.StartAsync();
        var env = host.Services.GetRequiredKeyedService<StorageEnvironment>("orders");
        await env.WriteAsync(0, static (tx, _) => tx.CreateTree("t"));

        PalFaultInjection.Arm(PalFaultKind.WriteError, osError: EIO, pathFilter: Path.Combine(dir.Path, "Journals") + "/");
        await Assert.ThrowsAnyAsync<Exception>(async () => await env.WriteAsync(0, static (tx, _) => tx.OpenTree("t").Put("k"u8, "v"u8)));
        PalFaultInjection.Disarm();

        var entry = (await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync()).Entries["cairn-orders"];
        Assert.Equal(HealthStatus.Unhealthy, entry.Status);
        Assert.IsType<EnvironmentFailedException>(entry.Exception);
        Assert.Contains(dir.Path, entry.Description);
        await host.StopAsync();
    }
}
