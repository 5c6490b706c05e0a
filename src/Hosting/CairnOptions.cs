namespace Cairn.Extensions.Hosting;

/// <summary>
/// One environment's settings as a host configures them: bindable from configuration (a section such as
/// <c>"Cairn:Orders"</c>), every engine setting optional (null keeps the engine's default, see
/// <see cref="StorageOptions"/>), validated when the host starts. Named after the environment's
/// registration (<c>services.AddCairn(name, ...)</c>).
/// </summary>
public sealed class CairnOptions
{
    /// <summary>The environment's directory (required); created if missing.</summary>
    public string? DirectoryPath { get; set; }

    /// <summary>The name in the environment's metrics and logs. Null: the registration's name.</summary>
    public string? Name { get; set; }

    /// <inheritdoc cref="StorageOptions.LockWaitTimeout"/>
    public TimeSpan? LockWaitTimeout { get; set; }

    /// <inheritdoc cref="StorageOptions.WriteTransactionTimeout"/>
    public TimeSpan? WriteTransactionTimeout { get; set; }

    /// <inheritdoc cref="StorageOptions.FlushThresholdBytes"/>
    public long? FlushThresholdBytes { get; set; }

    /// <inheritdoc cref="StorageOptions.MaxFlushDelay"/>
    public TimeSpan? MaxFlushDelay { get; set; }

    /// <inheritdoc cref="StorageOptions.SyncInterval"/>
    public TimeSpan? SyncInterval { get; set; }

    /// <inheritdoc cref="StorageOptions.MaxScratchBytes"/>
    public long? MaxScratchBytes { get; set; }

    /// <inheritdoc cref="StorageOptions.ScratchWaitTimeout"/>
    public TimeSpan? ScratchWaitTimeout { get; set; }

    /// <inheritdoc cref="StorageOptions.InitialJournalSize"/>
    public long? InitialJournalSize { get; set; }

    /// <inheritdoc cref="StorageOptions.MaxJournalSize"/>
    public long? MaxJournalSize { get; set; }

    /// <inheritdoc cref="StorageOptions.SlowJournalWriteThreshold"/>
    public TimeSpan? SlowJournalWriteThreshold { get; set; }

    /// <inheritdoc cref="StorageOptions.IoStatsCapacity"/>
    public int? IoStatsCapacity { get; set; }

    /// <inheritdoc cref="StorageOptions.MergerMaxQueuedOperations"/>
    public int? MergerMaxQueuedOperations { get; set; }

    /// <inheritdoc cref="StorageOptions.MergerQueueTimeout"/>
    public TimeSpan? MergerQueueTimeout { get; set; }

    /// <inheritdoc cref="StorageOptions.MergerMaxTransactionBytes"/>
    public long? MergerMaxTransactionBytes { get; set; }

    /// <inheritdoc cref="StorageOptions.MergerMaxBatchDuration"/>
    public TimeSpan? MergerMaxBatchDuration { get; set; }

    /// <inheritdoc cref="StorageOptions.MergerReturnGrace"/>
    public TimeSpan? MergerReturnGrace { get; set; }

    /// <summary>The health check reports Degraded once scratch memory in use reaches this fraction of <see cref="MaxScratchBytes"/> (commits wait for room at 1.0). Default 0.8.</summary>
    public double ScratchDegradedFraction { get; set; } = 0.8;

    /// <summary>
    /// The health check reports Degraded once journal files on disk exceed this many bytes: the flusher
    /// is not keeping up, or a long reader pins what it would write. Null: four times the flush threshold
    /// (<see cref="FlushThresholdBytes"/>, 256 MiB by default), the journal a healthy environment keeps
    /// being about one threshold's worth.
    /// </summary>
    public long? JournalDegradedBytes { get; set; }
}
