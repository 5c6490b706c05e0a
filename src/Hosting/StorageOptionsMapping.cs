using Microsoft.Extensions.Logging;
using System.Diagnostics.Metrics;

namespace Cairn.Extensions.Hosting;

/// <summary>Turns a host's <see cref="CairnOptions"/> into the engine's <see cref="StorageOptions"/>, unset values keeping the engine's defaults.</summary>
internal static class StorageOptionsMapping
{
    public static StorageOptions ToStorageOptions(this CairnOptions o, string registrationName, ILoggerFactory? loggers, IMeterFactory? meters)
    {
        if (string.IsNullOrWhiteSpace(o.DirectoryPath))
            throw new InvalidOperationException($"Cairn environment '{registrationName}': DirectoryPath is required.");
        var defaults = new StorageOptions(o.DirectoryPath);
        return new StorageOptions(o.DirectoryPath)
        {
            Name = o.Name ?? registrationName,
            LoggerFactory = loggers,
            MeterFactory = meters,
            LockWaitTimeout = o.LockWaitTimeout ?? defaults.LockWaitTimeout,
            WriteTransactionTimeout = o.WriteTransactionTimeout ?? defaults.WriteTransactionTimeout,
            FlushThresholdBytes = o.FlushThresholdBytes ?? defaults.FlushThresholdBytes,
            MaxFlushDelay = o.MaxFlushDelay ?? defaults.MaxFlushDelay,
            SyncInterval = o.SyncInterval ?? defaults.SyncInterval,
            MaxScratchBytes = o.MaxScratchBytes ?? defaults.MaxScratchBytes,
            ScratchWaitTimeout = o.ScratchWaitTimeout ?? defaults.ScratchWaitTimeout,
            InitialJournalSize = o.InitialJournalSize ?? defaults.InitialJournalSize,
            MaxJournalSize = o.MaxJournalSize ?? defaults.MaxJournalSize,
            SlowJournalWriteThreshold = o.SlowJournalWriteThreshold ?? defaults.SlowJournalWriteThreshold,
            IoStatsCapacity = o.IoStatsCapacity ?? defaults.IoStatsCapacity,
            MergerMaxQueuedOperations = o.MergerMaxQueuedOperations ?? defaults.MergerMaxQueuedOperations,
            MergerQueueTimeout = o.MergerQueueTimeout ?? defaults.MergerQueueTimeout,
            MergerMaxTransactionBytes = o.MergerMaxTransactionBytes ?? defaults.MergerMaxTransactionBytes,
            MergerMaxBatchDuration = o.MergerMaxBatchDuration ?? defaults.MergerMaxBatchDuration,
            MergerReturnGrace = o.MergerReturnGrace ?? defaults.MergerReturnGrace,
        };
    }

    /// <summary>The journal size beyond which the health check reports Degraded.</summary>
    public static long JournalDegradedBytes(this CairnOptions o, StorageOptions storage) =>
        o.JournalDegradedBytes ?? 4 * storage.FlushThresholdBytes;
}
