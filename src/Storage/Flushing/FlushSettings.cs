namespace Cairn.Flushing;

/// <summary>When the flusher writes and syncs (see StorageOptions for each).</summary>
internal sealed record FlushSettings(
    TimeSpan MaxFlushDelay,
    long FlushThresholdBytes,
    TimeSpan SyncInterval,
    long MaxJournalFileBytes)
{
    /// <summary>How long a flush that found the disk full waits before it tries again.</summary>
    public TimeSpan DiskFullRetryDelay { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>The recovery objective: journal bytes past the last sync at which a flush and a sync are due (StorageOptions.MaxRecoveryJournalBytes).</summary>
    public long MaxRecoveryJournalBytes { get; init; } = long.MaxValue;

    /// <summary>
    /// Scratch memory up to which a flush by age goes at once, whatever it weighs (<see cref="AgeFlushRule"/>): 16 MiB,
    /// a few milliseconds of copying, below which deferring saves nothing worth a flush delay of staleness.
    /// </summary>
    public long SmallFlushBytes { get; init; } = 16L << 20;
}
