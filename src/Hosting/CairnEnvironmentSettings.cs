using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Cairn.Extensions.Hosting;

/// <summary>
/// What one registration resolved to, once: the options the environment is opened with (the configured
/// <see cref="CairnOptions.Storage"/> with the registration's name and the host's logging and metrics filled in) and
/// the health check's thresholds. A keyed singleton, so the environment and its health check read the same values
/// even if configuration reloads.
/// </summary>
internal sealed record CairnEnvironmentSettings(StorageOptions Storage, double ScratchDegradedFraction, long JournalDegradedBytes)
{
    public static CairnEnvironmentSettings Resolve(IServiceProvider provider, string registrationName)
    {
        var options = provider.GetRequiredService<IOptionsMonitor<CairnOptions>>().Get(registrationName);
        return From(options, registrationName, provider.GetService<ILoggerFactory>(), provider.GetService<IMeterFactory>());
    }

    public static CairnEnvironmentSettings From(CairnOptions options, string registrationName, ILoggerFactory? loggers, IMeterFactory? meters)
    {
        var configured = options.Storage ?? throw new InvalidOperationException(MissingDirectory(registrationName));
        var storage = configured with
        {
            Name = configured.Name ?? registrationName,
            LoggerFactory = configured.LoggerFactory ?? loggers,
            MeterFactory = configured.MeterFactory ?? meters,
        };
        return new CairnEnvironmentSettings(storage, options.ScratchDegradedFraction,
            options.JournalDegradedBytes ?? 4 * storage.FlushThresholdBytes);
    }

    public static string MissingDirectory(string registrationName)
        => $"Cairn environment '{registrationName}': Storage:DirectoryPath is required.";
}
