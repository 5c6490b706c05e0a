using Cairn.Diagnostics;
using Cairn.Flushing;
using Cairn.FreeSpace;
using Cairn.Journal.Files;
using Cairn.Pal;
using Cairn.Paging;
using Cairn.Recovery;
using Cairn.Transactions;
using Microsoft.Extensions.Logging;

namespace Cairn.Opening;

/// <summary>
/// Everything an open does before the environment runs: creates the directories and the data file if
/// needed (durably), validates the header against the file, replays the journals, and builds the first
/// state, the free-space map and the journal writer on what recovery found.
/// </summary>
internal static unsafe class EnvironmentOpener
{
    // admit judges the environment's id as soon as the header is read, before anything in the directory is written or
    // replayed (a journal group refuses a second member with an id it holds); what it throws fails the open.
    public static OpenedEnvironment Open(string directory, string dataFileName, OpenSettings settings, ILogger logger, Action<Guid>? admit = null)
    {
        string journals = Path.Combine(directory, JournalFileName.DirectoryName);
        bool newDirectories = !Directory.Exists(journals);
        CreateDirectories(directory, journals);
        ProbeDurability(directory, logger);
        DataFileWriterSetup.EnsureConfigured();
        ReportWriterBackend(logger);

        string dataPath = Path.Combine(directory, dataFileName);
        if (DataFileCreation.EnsureExists(dataPath, settings.LockWaitTimeout))
            newDirectories = true;
        if (newDirectories)
        {
            // New names (the data file, Journals/, the directory itself) must survive a crash like their contents.
            PalFileSystem.SyncDirectory(directory);
            string? parent = Path.GetDirectoryName(Path.GetFullPath(directory));
            if (parent is not null)
                PalFileSystem.SyncDirectory(parent);
        }

        var dataFile = DataFile.Open(dataPath, settings.LockWaitTimeout);
        var scratch = new ScratchAllocator(settings.RetainedScratchBytes, ScratchAllocator.OnThreadPool);
        EnvironmentState? state = null;
        try
        {
            var headers = StateRecovery.LoadHeaders(dataFile, logger, readOnly: false,
                admit is null ? null : header => admit(header.EnvironmentId));
            if (dataFile.TrailingBytes != 0)
            {
                Log.DataFileTrailingBytes(logger, dataFile.FilePath, dataFile.PageCount * StorageConstants.PageSize, dataFile.TrailingBytes);
                dataFile.DropTrailingBytes();
            }

            // Replayed pages stay in scratch memory (and become the first state's page table) up to half the
            // limit; a spill rewrites them all and makes the next entries read them back, so it is the exception.
            long recoveryBudget = settings.MaxScratchBytes / 2;
            (state, var freeSpace, var recovery) = StateRecovery.Recover(journals, headers.Current, dataFile, scratch, recoveryBudget, logger,
                keepSynced: settings.JournalRetentionBytes > 0, readOnly: false);
            var ioStats = new IoStats(settings.IoStatsCapacity);
            var inventory = new JournalInventory(journals, settings.JournalSizing, recovery.Journals, logger,
                settings.JournalRetentionBytes > 0 ? new JournalRetention(settings.JournalRetentionBytes) : null);
            var spares = new SpareJournals(inventory, logger, settings.PrepareSpareJournals);
            var journal = new WriteAheadJournal(inventory, spares, ioStats, logger, settings.SlowJournalWriteThreshold);
            return new OpenedEnvironment(dataFile, headers, scratch, state, freeSpace, journal, ioStats, recovery.TransactionsReplayed);
        }
        catch
        {
            if (state is not null)
                StateRecovery.FreePages(state.Pages, scratch);
            scratch.Dispose();
            dataFile.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Creates the environment's directory and its <c>Journals/</c>; a file standing where either should
    /// be (or any other reason they cannot be made) is a <see cref="StorageFormatException"/> naming it.
    /// </summary>
    private static void CreateDirectories(string directory, string journals)
    {
        foreach (var path in new[] { directory, journals })
        {
            if (File.Exists(path))
                throw new StorageFormatException(path, 0, "a file stands where the environment needs a directory (wrong path, or a damaged environment?)");
            try
            {
                Directory.CreateDirectory(path);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                throw new StorageFormatException(path, 0, $"the directory cannot be created: {e.Message}");
            }
        }
    }

    /// <summary>Logs what the directory's file system offers; tmpfs makes every durability promise void.</summary>
    private static void ProbeDurability(string directory, ILogger logger)
    {
        if (!logger.IsEnabled(LogLevel.Warning))
            return;
        var info = PalFileSystem.GetInfo(directory);
        Log.DurabilityProbe(logger, directory, info.FileSystemType, info.SupportsDirectIO, info.FreeBytes);
        if (info.IsVolatile)
            Log.VolatileFileSystem(logger, directory);
    }

    private static void ReportWriterBackend(ILogger logger)
    {
        if (!logger.IsEnabled(LogLevel.Information))
            return;
        var backend = PalIo.GetBackend();
        if (backend.SetupError != 0)
            Log.DataFileWriterFallback(logger, backend.Backend.ToString(), $"io_uring is unavailable (OS error {backend.SetupError}: {PalErrors.DescribeOsError(backend.SetupError)})");
        else
            Log.DataFileWriterBackend(logger, backend.Backend.ToString());
    }
}
