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
}
