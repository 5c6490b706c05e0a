using System.Diagnostics.Metrics;
using Cairn;
using Cairn.Extensions.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers Cairn environments with a host.</summary>
public static class CairnServiceCollectionExtensions
{
    /// <summary>
    /// Registers the environment <paramref name="name"/>: a keyed singleton <see cref="StorageEnvironment"/>
    /// (inject it with <c>[FromKeyedServices("name")]</c> or <c>GetRequiredKeyedService&lt;StorageEnvironment&gt;("name")</c>)
    /// whose options are validated and which is opened (recovering if needed) when the host starts, and
    /// closed when the host stops: queued <see cref="StorageEnvironment.WriteAsync{TState}"/> operations
    /// commit first, then pages are flushed and synced. Logs go to the host's <see cref="ILoggerFactory"/>,
    /// metrics to its <see cref="IMeterFactory"/>, both tagged with the name.
    /// </summary>
    /// <param name="services">The host's services.</param>
    /// <param name="name">The environment's registration name (the key, the options name, the metrics tag unless <see cref="StorageOptions.Name"/> says otherwise).</param>
    /// <param name="configure">Sets the options; runs after any configuration binding.</param>
    /// <returns>The options builder, to bind or validate more.</returns>
    /// <exception cref="InvalidOperationException">An environment of that name is already registered.</exception>
    public static OptionsBuilder<CairnOptions> AddCairn(this IServiceCollection services, string name, Action<CairnOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        return AddCairnCore(services, name).Configure(configure);
    }

    /// <summary>
    /// Registers the environment <paramref name="name"/> (see <see cref="AddCairn(IServiceCollection, string, Action{CairnOptions})"/>)
    /// with its options bound from <paramref name="configuration"/>, a section such as
    /// <c>{ "Storage": { "DirectoryPath": "/var/lib/app/orders", "MaxScratchBytes": 1073741824, "SyncInterval": "00:00:05" },
    /// "ScratchDegradedFraction": 0.9 }</c>: every <see cref="StorageOptions"/> option binds under its own name.
    /// </summary>
    /// <param name="services">The host's services.</param>
    /// <param name="name">The environment's registration name.</param>
    /// <param name="configuration">The section holding the environment's <see cref="CairnOptions"/>.</param>
    /// <returns>The options builder, to configure or validate more.</returns>
    /// <exception cref="InvalidOperationException">An environment of that name is already registered.</exception>
    public static OptionsBuilder<CairnOptions> AddCairn(this IServiceCollection services, string name, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        return AddCairnCore(services, name).Bind(configuration);
    }

    private static OptionsBuilder<CairnOptions> AddCairnCore(IServiceCollection services, string name)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        var registrations = Registrations(services);
        if (registrations.Names.Contains(name))
            throw new InvalidOperationException($"A Cairn environment named '{name}' is already registered.");
        registrations.Names.Add(name);

        services.TryAddEnumerable(ServiceDescriptor.Singleton<IHostedService, CairnEnvironmentLifetime>());
        services.AddSingleton<IValidateOptions<CairnOptions>>(new CairnOptionsValidator(name));
        services.AddKeyedSingleton(name, static (provider, key) => CairnEnvironmentSettings.Resolve(provider, (string)key!));
        services.AddKeyedSingleton(name, static (provider, key) =>
            StorageEnvironment.Open(provider.GetRequiredKeyedService<CairnEnvironmentSettings>(key).Storage));
        return services.AddOptions<CairnOptions>(name).ValidateOnStart();
    }

    /// <summary>The names registered so far, kept as a singleton instance so the lifetime service can open and close each.</summary>
    private static CairnRegistrations Registrations(IServiceCollection services)
    {
        foreach (var descriptor in services)
            if (descriptor.ServiceType == typeof(CairnRegistrations) && descriptor.ImplementationInstance is CairnRegistrations existing)
                return existing;
        var registrations = new CairnRegistrations();
        services.AddSingleton(registrations);
        return registrations;
    }
}
