using Cairn.Extensions.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;

namespace Cairn.Tests.OptionsModel;

/// <summary>A hosted application can set every engine option from configuration, with no list of them in hosting.</summary>
public sealed class HostingBindingTests
{
    [Fact]
    public void Every_public_settable_StorageOptions_property_round_trips_through_configuration()
    {
        var defaults = new StorageOptions("/srv/cairn/orders");
        var expected = OptionValues.Configurable().ToDictionary(p => p.Name, p => OptionValues.Different(p, defaults));
        var services = new ServiceCollection();
        services.AddCairn("orders", new ConfigurationBuilder()
            .AddInMemoryCollection(expected.ToDictionary(e => $"Storage:{e.Key}", e => (string?)OptionValues.Text(e.Value)))
            .Build());
        using var provider = services.BuildServiceProvider();

        // What the environment opens with and the health check reads.
        var bound = CairnEnvironmentSettings.Resolve(provider, "orders").Storage;

        var missing = OptionValues.Configurable().Where(p => !Equals(p.GetValue(bound), expected[p.Name])).Select(p => p.Name).ToList();
        Assert.True(missing.Count == 0, $"not bound from configuration: {string.Join(", ", missing)}");
    }

    [Fact]
    public void Unset_options_keep_the_engine_defaults_and_the_host_names_the_environment()
    {
        var services = new ServiceCollection();
        services.AddCairn("orders", new ConfigurationBuilder()
            .AddInMemoryCollection(new Dictionary<string, string?> { ["Storage:DirectoryPath"] = "/srv/cairn/orders" })
            .Build());
        using var provider = services.BuildServiceProvider();

        var bound = CairnEnvironmentSettings.Resolve(provider, "orders");

        Assert.Equal(new StorageOptions("/srv/cairn/orders") { Name = "orders" }, bound.Storage);
        Assert.Equal(4 * bound.Storage.FlushThresholdBytes, bound.JournalDegradedBytes);
    }
}
