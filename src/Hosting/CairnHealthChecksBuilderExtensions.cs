using Cairn;
using Cairn.Extensions.Hosting;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Adds Cairn environments' health to a host's health checks.</summary>
public static class CairnHealthChecksBuilderExtensions
{
    /// <summary>
    /// Checks the environment registered as <paramref name="name"/> (with <c>AddCairn</c>): Unhealthy
    /// (<paramref name="failureStatus"/>) once an I/O failure has stopped its writes; Degraded when scratch
    /// memory reaches <see cref="CairnOptions.ScratchDegradedFraction"/> of its limit or its journal on disk
    /// exceeds <see cref="CairnOptions.JournalDegradedBytes"/>; Healthy otherwise.
    /// </summary>
    /// <param name="builder">The host's health checks.</param>
    /// <param name="name">The environment's registration name.</param>
    /// <param name="failureStatus">What a failed environment reports. Null: Unhealthy.</param>
    /// <param name="tags">Tags for filtering checks (readiness, liveness).</param>
    /// <returns>The builder.</returns>
    public static IHealthChecksBuilder AddCairnCheck(this IHealthChecksBuilder builder, string name,
        HealthStatus? failureStatus = null, IEnumerable<string>? tags = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        return builder.Add(new HealthCheckRegistration($"cairn-{name}", provider =>
        {
            // The values the environment was opened with, not a second reading of configuration.
            var settings = provider.GetRequiredKeyedService<CairnEnvironmentSettings>(name);
            return new CairnHealthCheck(provider.GetRequiredKeyedService<StorageEnvironment>(name), settings.Storage.MaxScratchBytes,
                settings.ScratchDegradedFraction, settings.JournalDegradedBytes);
        }, failureStatus, tags));
    }
}
