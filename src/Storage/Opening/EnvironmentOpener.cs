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
        var scratch = new ScratchAllocator(settings.RetainedScratchBytes);
        RecoveryResult? recovery = null;
        PageTable? pages = null;
        try
        {
            var headers = new HeaderStore(dataFile);
            headers.Load(admit is null ? null : header => admit(header.EnvironmentId));
            var header = headers.Current;
            if (headers.RepairedCopy is { } repaired)
                Log.HeaderCopyRepaired(logger, dataFile.FilePath, repaired.Offset, repaired.Problem, header.LastTransactionId, header.JournalSequence);
            CheckHeaderAgainstFile(header, dataFile);
            if (dataFile.TrailingBytes != 0)
            {
                Log.DataFileTrailingBytes(logger, dataFile.FilePath, dataFile.PageCount * StorageConstants.PageSize, dataFile.TrailingBytes);
                dataFile.DropTrailingBytes();
            }

            // Replayed pages stay in scratch memory (and become the first state's page table) up to half the
            // limit; a spill rewrites them all and makes the next entries read them back, so it is the exception.
            long recoveryBudget = settings.MaxScratchBytes / 2;
            recovery = JournalRecovery.Run(journals, header, dataFile, scratch, recoveryBudget, logger,
                keepSynced: settings.JournalRetentionBytes > 0);
            var builder = PageTable.Empty.ToBuilder();
            foreach (var (pageNumber, version) in recovery.Pages)
                builder.Set(pageNumber, version);
            pages = builder.ToImmutable();

            var state = new EnvironmentState(recovery.LastTransactionId, epoch: 1, pages, recovery.LastEntry?.Root ?? header.Root,
                dataFile.Map(), recovery.Position);
            var freeSpace = FreeSpaceMap.Load(LowLevelTransaction.ForReading(dataFile, scratch, state),
                state.FreeSpaceDirectoryPage, state.NextPageNumber);
            // Replay rebuilt runs that later replayed transactions freed; the recovered map says which.
            pages = FreedRecoveredRuns.Drop(pages, freeSpace, scratch, dataFile.FilePath, out _);
            state = state.WithPages(state.Epoch, pages, state.View);
            var ioStats = new IoStats(settings.IoStatsCapacity);
            var inventory = new JournalInventory(journals, settings.JournalSizing, recovery.Journals, logger,
                settings.JournalRetentionBytes > 0 ? new JournalRetention(settings.JournalRetentionBytes) : null);
            var spares = new SpareJournals(inventory, logger, settings.PrepareSpareJournals);
            var journal = new WriteAheadJournal(inventory, spares, ioStats, logger, settings.SlowJournalWriteThreshold);
            return new OpenedEnvironment(dataFile, headers, scratch, state, freeSpace, journal, ioStats, recovery.TransactionsReplayed);
        }
        catch
        {
            if (pages is not null)
            {
                foreach (var (_, version) in pages)
                    scratch.Free((byte*)version.Pointer, version.PageCount);
            }
            else if (recovery is not null)
            {
                foreach (var (_, version) in recovery.Pages)
                    scratch.Free((byte*)version.Pointer, version.PageCount);
            }
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

    private static void CheckHeaderAgainstFile(FileHeader header, DataFile dataFile)
    {
        var root = header.Root;
        if (root.NextPageNumber < DataFile.HeaderPages || root.NextPageNumber > dataFile.PageCount)
            throw new StorageFormatException(dataFile.FilePath, 0,
                $"the header counts {root.NextPageNumber} pages in use but the file holds {dataFile.PageCount} (truncated file?)");
        if (root.RootTree.RootPage < DataFile.HeaderPages || root.RootTree.RootPage >= root.NextPageNumber ||
            root.FreeSpaceDirectoryPage < DataFile.HeaderPages || root.FreeSpaceDirectoryPage >= root.NextPageNumber)
            throw new StorageFormatException(dataFile.FilePath, 0, "the header points at pages outside the file");
    }
}
