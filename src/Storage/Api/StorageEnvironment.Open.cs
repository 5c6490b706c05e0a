using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Journal.Files;
using Cairn.Journal.Sharing;
using Cairn.Opening;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    /// <summary>The category of everything the engine logs (event ids in docs/design.md, "Logging").</summary>
    public const string LogCategory = "Cairn.StorageEnvironment";

    /// <summary>
    /// Opens (creating if needed) the environment in <see cref="StorageOptions.DirectoryPath"/>. If the
    /// last process did not close it cleanly, the journals are replayed first: every transaction whose
    /// commit returned is there afterwards, and nothing of one that did not return is half there.
    /// </summary>
    /// <exception cref="EnvironmentLockedException">Another process (or instance) has it open.</exception>
    /// <exception cref="JournalCorruptionException">A journal is damaged where recovery needs it (the message names the file and offset).</exception>
    /// <exception cref="PageCorruptionException">A page does not validate.</exception>
    /// <exception cref="StorageFormatException">The data file is not a Cairn data file, or both header copies are damaged.</exception>
    public static StorageEnvironment Open(StorageOptions options) => Open(options, membership: null);

    /// <summary>Opens the environment, as a branch with <paramref name="membership"/>: its id is claimed in the group as soon as its header is read.</summary>
    private static StorageEnvironment Open(StorageOptions options, GroupMembership? membership)
    {
        ArgumentNullException.ThrowIfNull(options);
        StorageOptionsValidation.Validate(options);
        long started = Stopwatch.GetTimestamp();
        var logger = (options.LoggerFactory ?? NullLoggerFactory.Instance).CreateLogger(LogCategory);
        var settings = new OpenSettings(options.LockWaitTimeout, options.MaxScratchBytes, options.IoStatsCapacity,
            new JournalSizing(options.InitialJournalFileBytes, options.MaxJournalFileBytes), options.SlowJournalWriteThreshold,
            options.PrepareSpareJournals, options.JournalRetentionBytes ?? 0,
            // Spare scratch memory kept for reuse: what the writer allocates between two flushes.
            RetainedScratchBytes: Math.Min(options.MaxScratchBytes, options.FlushThresholdBytes));
        var opened = EnvironmentOpener.Open(options.DirectoryPath, DataFileName, settings, logger, membership is null ? null : membership.Claim);
        var environment = new StorageEnvironment(options, logger, opened, membership);
        var elapsed = Stopwatch.GetElapsedTime(started);
        environment._metrics.RecordOpened(elapsed, opened.TransactionsReplayed);
        Log.EnvironmentOpened(logger, options.DirectoryPath, opened.InitialState.TransactionId, opened.DataFile.PageCount,
            opened.TransactionsReplayed, elapsed.TotalMilliseconds);
        return environment;
    }
}
