using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn.Extensions.Hosting;

/// <summary>
/// Opens every registered environment when the host starts (so recovery runs, and a damaged environment
/// stops the host, before the application serves anything) and closes them, in reverse order, when it
/// stops: each close drains the merger (queued operations commit), flushes and syncs. Closing here rather
/// than when the container is disposed puts it inside the host's shutdown timeout and its logging.
/// </summary>
internal sealed class CairnEnvironmentLifetime(IServiceProvider services, CairnRegistrations registrations, ILogger<CairnEnvironmentLifetime>? logger = null)
    : IHostedService
{
    private readonly ILogger _logger = logger ?? (ILogger)NullLogger.Instance;

    public Task StartAsync(CancellationToken cancellationToken)
    {
        foreach (string name in registrations.Names)
        {
            cancellationToken.ThrowIfCancellationRequested();
            services.GetRequiredKeyedService<StorageEnvironment>(name);
        }
        return Task.CompletedTask;
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        List<Exception>? failures = null;
        for (int i = registrations.Names.Count - 1; i >= 0; i--)
        {
            string name = registrations.Names[i];
            try
            {
                await services.GetRequiredKeyedService<StorageEnvironment>(name).DisposeAsync().ConfigureAwait(false);
            }
            catch (Exception e)
            {
                // The others still close; the host hears about every failure at the end.
                _logger.LogError(e, "Closing Cairn environment '{Name}' failed", name);
                (failures ??= []).Add(e);
            }
        }
        if (failures is not null)
            throw new AggregateException("Closing Cairn environments failed", failures);
    }
}
