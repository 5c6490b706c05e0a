using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Cairn.Extensions.Hosting;

/// <summary>
/// An environment's health: Unhealthy (the registration's failure status) once an I/O failure has
/// latched it (writes refused until reopened); Degraded when scratch memory nears its limit (commits
/// are about to wait) or the journal on disk has grown past its bound (the flusher is behind, or a
/// long reader pins pages); Healthy otherwise. The figures go in the result's data either way.
/// </summary>
internal sealed class CairnHealthCheck(StorageEnvironment environment, long maxScratchBytes, double scratchDegradedFraction, long journalDegradedBytes)
    : IHealthCheck
{
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        long scratch = environment.ScratchBytesInUse;
        long journal = environment.JournalBytesOnDisk;
        var data = new Dictionary<string, object>
        {
            ["scratchBytes"] = scratch,
            ["maxScratchBytes"] = maxScratchBytes,
            ["journalBytes"] = journal,
            ["journalDegradedBytes"] = journalDegradedBytes,
            ["lastCommittedTransactionId"] = environment.LastCommittedTransactionId,
            ["lastSyncedTransactionId"] = environment.LastSyncedTransactionId,
        };
        if (environment.Failure is { } failure)
            return Task.FromResult(new HealthCheckResult(context.Registration.FailureStatus, failure.Message, failure, data));
        var problems = new List<string>(2);
        if (scratch >= scratchDegradedFraction * maxScratchBytes)
            problems.Add($"scratch memory {scratch:N0} of {maxScratchBytes:N0} bytes");
        if (journal > journalDegradedBytes)
            problems.Add($"journal {journal:N0} bytes on disk, more than {journalDegradedBytes:N0}");
        return Task.FromResult(problems.Count == 0
            ? HealthCheckResult.Healthy(data: data)
            : HealthCheckResult.Degraded(string.Join("; ", problems), data: data));
    }
}
