using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Flushing;
using Cairn.FreeSpace;
using Cairn.Journal.Files;
using Cairn.Pal;
using Cairn.Paging;
using Cairn.Recovery;
using Cairn.Transactions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn;

public sealed unsafe partial class StorageEnvironment
{
    /// <summary>
    /// Opens (creating if needed) the environment in <see cref="StorageOptions.DirectoryPath"/>. If the
    /// last process did not close it cleanly, the journals are replayed first: every transaction whose
    /// commit returned is there afterwards, and nothing of one that did not return is half there.
    /// </summary>
    /// <exception cref="EnvironmentLockedException">Another process (or instance) has it open.</exception>
    /// <exception cref="JournalCorruptionException">A journal is damaged where recovery needs it (the message names the file and offset).</exception>
    /// <exception cref="PageCorruptionException">A page does not validate.</exception>
    /// <exception cref="StorageFormatException">The data file is not a Cairn data file, or both header copies are damaged.</exception>
    public static StorageEnvironment Open(StorageOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        StorageOptionsValidation.Validate(options);
        long started = Stopwatch.GetTimestamp();
        var logger = (options.LoggerFactory ?? NullLoggerFactory.Instance).CreateLogger(Log.Category);
        var sizing = new JournalSizing(options.InitialJournalSize, options.MaxJournalSize);

        string directory = options.DirectoryPath;
        string journals = Path.Combine(directory, JournalFileName.DirectoryName);
        bool newDirectories = !Directory.Exists(journals);
        CreateDirectories(directory, journals);
        ProbeDurability(directory, logger);
        DataFileWriterSetup.EnsureConfigured();
        ReportWriterBackend(logger);

        string dataPath = Path.Combine(directory, DataFileName);
        if (DataFileCreation.EnsureExists(dataPath, options.LockWaitTimeout))
            newDirectories = true;
        if (newDirectories)
        {
            // New names (the data file, Journals/, the directory itself) must survive a crash like their contents.
            PalFileSystem.SyncDirectory(directory);
            string? parent = Path.GetDirectoryName(Path.GetFullPath(directory));
            if (parent is not null)
                PalFileSystem.SyncDirectory(parent);
        }

        var dataFile = DataFile.Open(dataPath, options.LockWaitTimeout);
        var scratch = new ScratchAllocator();
        RecoveryResult? recovery = null;
        PageTable? pages = null;
        try
        {
            var headers = new HeaderStore(dataFile);
            headers.Load();
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
            long recoveryBudget = options.MaxScratchBytes / 2;
            recovery = JournalRecovery.Run(journals, header, dataFile, scratch, recoveryBudget, logger);
            var builder = PageTable.Empty.ToBuilder();
            foreach (var (pageNumber, version) in recovery.Pages)
                builder.Set(pageNumber, version);
            pages = builder.ToImmutable();

            var last = recovery.LastEntry;
            var state = new EnvironmentState(recovery.LastTransactionId, epoch: 1, pages,
                last?.NextPageNumber ?? header.NextPageNumber, last?.RootTree ?? header.RootTree,
                last?.FreeSpaceDirectoryPage ?? header.FreeSpaceDirectoryPage, dataFile.Map(), recovery.Position);
            var freeSpace = FreeSpaceMap.Load(LowLevelTransaction.ForReading(dataFile, scratch, state),
                state.FreeSpaceDirectoryPage, state.NextPageNumber);
            // Replay rebuilt runs that later replayed transactions freed; the recovered map says which.
            pages = FreedRecoveredRuns.Drop(pages, freeSpace, scratch, dataFile.FilePath, out _);
            state = state.WithPages(state.Epoch, pages, state.View);
            var ioStats = new IoStats(options.IoStatsCapacity);
            var journal = new WriteAheadJournal(journals, sizing, ioStats, logger, options.SlowJournalWriteThreshold,
                recovery.NextSequence, recovery.RetainedJournals, recovery.RecyclableJournals, recovery.NextRecyclableNumber,
                options.PrepareSpareJournals);
            var environment = new StorageEnvironment(options, logger, ioStats, dataFile, headers, scratch, state, freeSpace, journal);
            if (recovery.TransactionsReplayed > 0)
                environment._unflushedSince = Stopwatch.GetTimestamp();
            environment._flushThread = new FlushThread("cairn-flusher", environment.RunFlushCycle);
            journal.RequestSpare();
            Log.EnvironmentOpened(logger, directory, state.TransactionId, dataFile.PageCount, recovery.TransactionsReplayed,
                Stopwatch.GetElapsedTime(started).TotalMilliseconds);
            return environment;
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
        if (header.NextPageNumber < DataFile.HeaderPages || header.NextPageNumber > dataFile.PageCount)
            throw new StorageFormatException(dataFile.FilePath, 0,
                $"the header counts {header.NextPageNumber} pages in use but the file holds {dataFile.PageCount} (truncated file?)");
        if (header.RootTree.RootPage < DataFile.HeaderPages || header.RootTree.RootPage >= header.NextPageNumber ||
            header.FreeSpaceDirectoryPage < DataFile.HeaderPages || header.FreeSpaceDirectoryPage >= header.NextPageNumber)
            throw new StorageFormatException(dataFile.FilePath, 0, "the header points at pages outside the file");
    }
}
