using Cairn.Cluster;
using Cairn.Cluster.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers Cairn cluster nodes with a host.</summary>
public static class CairnClusterServiceCollectionExtensions
{
    /// <summary>
    /// Registers the cluster node <paramref name="name"/>: started with the host (its environment opened, its Raft log
    /// replayed, its member started, and its <see cref="ClusterNodeServer"/> listening if
    /// <see cref="CairnClusterOptions.ClientEndPoint"/> is set) and stopped with it; the running node is a keyed
    /// singleton <see cref="ClusterNode"/> (<c>[FromKeyedServices("name")]</c>), resolvable while the host runs. Options
    /// are validated when the host starts; the node's environment logs to the host's <see cref="ILoggerFactory"/> and
    /// measures itself, and the node, on the host's <see cref="IMeterFactory"/>.
    /// </summary>
    /// <param name="services">The host's services.</param>
    /// <param name="name">The node's registration name (the key, the options name, the environment's name unless its options give one).</param>
    /// <param name="configure">Sets the options; runs after any configuration binding.</param>
    /// <returns>The options builder, to bind or validate more.</returns>
    /// <exception cref="InvalidOperationException">A cluster node of that name is already registered.</exception>
    public static OptionsBuilder<CairnClusterOptions> AddCairnCluster(this IServiceCollection services, string name, Action<CairnClusterOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        return AddCairnClusterCore(services, name).Configure(configure);
    }

    /// <summary>
    /// Registers the cluster node <paramref name="name"/> (see
    /// <see cref="AddCairnCluster(IServiceCollection, string, Action{CairnClusterOptions})"/>) with its options bound
    /// from <paramref name="configuration"/>, a section shaped as <see cref="CairnClusterOptions"/> describes.
    /// </summary>
    /// <param name="services">The host's services.</param>
    /// <param name="name">The node's registration name.</param>
    /// <param name="configuration">The section holding the node's <see cref="CairnClusterOptions"/>.</param>
    /// <returns>The options builder, to configure or validate more.</returns>
    /// <exception cref="InvalidOperationException">A cluster node of that name is already registered.</exception>
    public static OptionsBuilder<CairnClusterOptions> AddCairnCluster(this IServiceCollection services, string name, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        return AddCairnClusterCore(services, name).Bind(configuration);
    }

    private static OptionsBuilder<CairnClusterOptions> AddCairnClusterCore(IServiceCollection services, string name)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        if (services.Any(d => d.ServiceType == typeof(ClusterNodeHandle) && Equals(d.ServiceKey, name)))
            throw new InvalidOperationException($"A Cairn cluster node named '{name}' is already registered.");
        EndPointConverter.Register();

        services.AddKeyedSingleton(name, static (_, key) => new ClusterNodeHandle((string)key!));
        services.AddKeyedSingleton(name, static (provider, key) => provider.GetRequiredKeyedService<ClusterNodeHandle>(key).Node);
        services.AddSingleton<IHostedService>(provider => new ClusterNodeLifetime(name,
            provider.GetRequiredService<IOptionsMonitor<CairnClusterOptions>>(), provider.GetRequiredKeyedService<ClusterNodeHandle>(name),
            provider.GetService<ILoggerFactory>(), provider.GetService<IMeterFactory>(),
            provider.GetService<IHostApplicationLifetime>()));
        services.AddSingleton<IValidateOptions<CairnClusterOptions>>(new CairnClusterOptionsValidator(name));
        return services.AddOptions<CairnClusterOptions>(name).ValidateOnStart();
    }
}
