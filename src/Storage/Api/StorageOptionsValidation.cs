using Cairn.Journal;

namespace Cairn;

/// <summary>
/// Checks every <see cref="StorageOptions"/> value when the environment opens, so a bad setting fails
/// there, naming the option, instead of later inside a semaphore, a timer or the flusher's schedule.
/// </summary>
internal static class StorageOptionsValidation
{
    /// <summary>
    /// Throws <see cref="ArgumentOutOfRangeException"/> (its parameter name is the option's name) for the first invalid
    /// value, or <see cref="ArgumentException"/> when <see cref="StorageOptions.DirectoryPath"/> is missing.
    /// </summary>
    public static void Validate(StorageOptions options)
    {
        // The parameterless constructor (configuration binding) leaves the one required option to its caller.
        if (string.IsNullOrEmpty(options.DirectoryPath))
            throw new ArgumentException("StorageOptions.DirectoryPath is required.", nameof(options.DirectoryPath));
        NonNegative(options.LockWaitTimeout, nameof(options.LockWaitTimeout));
        NonNegativeOrInfinite(options.WriteTransactionTimeout, nameof(options.WriteTransactionTimeout));
        Positive(options.FlushThresholdBytes, nameof(options.FlushThresholdBytes));
        NonNegative(options.MaxFlushDelay, nameof(options.MaxFlushDelay));
        Positive(options.SyncInterval, nameof(options.SyncInterval));
        Positive(options.MaxRecoveryJournalBytes, nameof(options.MaxRecoveryJournalBytes));
        Positive(options.MaxScratchBytes, nameof(options.MaxScratchBytes));
        NonNegative(options.ScratchWaitTimeout, nameof(options.ScratchWaitTimeout));
        if (options.InitialJournalFileBytes <= 0 || options.InitialJournalFileBytes % JournalEntryHeader.Alignment != 0)
            throw Invalid(nameof(options.InitialJournalFileBytes), options.InitialJournalFileBytes, $"must be a positive multiple of {JournalEntryHeader.Alignment}");
        if (options.MaxJournalFileBytes < options.InitialJournalFileBytes || options.MaxJournalFileBytes % JournalEntryHeader.Alignment != 0)
            throw Invalid(nameof(options.MaxJournalFileBytes), options.MaxJournalFileBytes,
                $"must be a multiple of {JournalEntryHeader.Alignment} and at least InitialJournalFileBytes ({options.InitialJournalFileBytes})");
        NonNegative(options.SlowJournalWriteThreshold, nameof(options.SlowJournalWriteThreshold));
        if (options.IoStatsCapacity < 16 || (options.IoStatsCapacity & (options.IoStatsCapacity - 1)) != 0)
            throw Invalid(nameof(options.IoStatsCapacity), options.IoStatsCapacity, "must be a power of two of at least 16");
        Positive(options.MergerMaxQueuedOperations, nameof(options.MergerMaxQueuedOperations));
        NonNegativeOrInfinite(options.MergerQueueTimeout, nameof(options.MergerQueueTimeout));
        Positive(options.MergerMaxTransactionBytes, nameof(options.MergerMaxTransactionBytes));
        Positive(options.MergerMaxBatchDuration, nameof(options.MergerMaxBatchDuration));
        NonNegative(options.MergerReturnGrace, nameof(options.MergerReturnGrace));
        if (options.JournalGroupMaxWriteEntries is < 1 or > Journal.Files.WriteAheadJournal.MaxBuffersPerWrite)
            throw Invalid(nameof(options.JournalGroupMaxWriteEntries), options.JournalGroupMaxWriteEntries,
                $"must be between 1 and {Journal.Files.WriteAheadJournal.MaxBuffersPerWrite}");
        Positive(options.JournalGroupMaxWriteBytes, nameof(options.JournalGroupMaxWriteBytes));
        if (options.JournalCompressionThresholdBytes is < 0)
            throw Invalid(nameof(options.JournalCompressionThresholdBytes), options.JournalCompressionThresholdBytes, "must be at least 0 (or null: never compress)");
        if (options.CommitMode is not (CommitMode.Durable or CommitMode.Lazy))
            throw Invalid(nameof(options.CommitMode), options.CommitMode, "must be Durable or Lazy");
        Positive(options.LazyCommitMaxDelay, nameof(options.LazyCommitMaxDelay));
        Positive(options.LazyCommitMaxBytes, nameof(options.LazyCommitMaxBytes));
        if (options.JournalRetentionBytes is <= 0)
            throw Invalid(nameof(options.JournalRetentionBytes), options.JournalRetentionBytes, "must be positive (or null: keep no journal past its sync)");
        if (options.JournalGroupMaxInFlightWrites is < 1 or > MaxJournalGroupInFlightWrites)
            throw Invalid(nameof(options.JournalGroupMaxInFlightWrites), options.JournalGroupMaxInFlightWrites,
                $"must be between 1 and {MaxJournalGroupInFlightWrites}");
    }

    // Beyond a few, more writes in flight only split the group's entries into smaller writes.
    private const int MaxJournalGroupInFlightWrites = 16;

    // SemaphoreSlim and friends take at most int.MaxValue milliseconds.
    private static readonly TimeSpan s_longestWait = TimeSpan.FromMilliseconds(int.MaxValue);

    private static void Positive(long value, string name)
    {
        if (value <= 0)
            throw Invalid(name, value, "must be positive");
    }

    private static void Positive(TimeSpan value, string name)
    {
        if (value <= TimeSpan.Zero || value > s_longestWait)
            throw Invalid(name, value, $"must be positive and at most {s_longestWait}");
    }

    private static void NonNegative(TimeSpan value, string name)
    {
        if (value < TimeSpan.Zero || value > s_longestWait)
            throw Invalid(name, value, $"must be zero or positive and at most {s_longestWait}");
    }

    private static void NonNegativeOrInfinite(TimeSpan value, string name)
    {
        if (value != Timeout.InfiniteTimeSpan)
            NonNegative(value, name);
    }

    private static ArgumentOutOfRangeException Invalid(string name, object value, string rule)
        => new(name, value, $"StorageOptions.{name} {rule} (it is {value}).");
}
