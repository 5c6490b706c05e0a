using System.Diagnostics;
using Cairn.Backups;

namespace Cairn;

public static partial class EnvironmentBackup
{
    /// <summary>
    /// Copies the closed (or backed-up) environment in <paramref name="sourceDirectory"/> into
    /// <paramref name="destinationDirectory"/> (new, or empty) with only the pages in use: every tree's pages are
    /// copied as they are into a new data file, renumbered densely, so free space stays behind. The source is opened
    /// (recovering it if need be) and read in one snapshot; the destination appears only when complete and synced.
    /// </summary>
    /// <exception cref="IOException">The destination is not empty, or a file could not be read or written.</exception>
    /// <exception cref="EnvironmentLockedException">The source is open in another process or instance (back it up with <see cref="Backup(StorageEnvironment, string, BackupOptions?, CancellationToken)"/> and <see cref="BackupOptions.Compact"/> instead).</exception>
    public static BackupResult Compact(string sourceDirectory, string destinationDirectory, IProgress<BackupProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(sourceDirectory);
        ArgumentException.ThrowIfNullOrEmpty(destinationDirectory);
        OwnedFolder.TryDeleteStale(sourceDirectory);
        using var staging = new StagingDirectory(destinationDirectory);
        using var source = StorageEnvironment.Open(new StorageOptions(sourceDirectory));
        return CompactInto(source, staging, new BackupOptions { Progress = progress }, cancellationToken);
    }

    /// <summary>
    /// A compacting backup of an open environment: its pages walked in one read snapshot while writers go on
    /// (<see cref="CompactInto"/>), into the destination directory, or for a stream into a work folder beside the
    /// environment's folder (<see cref="OwnedFolder"/>, kind compact) streamed from there and deleted at the end; one a
    /// killed process left is deleted by the next backup, restore or compaction of the same environment.
    /// </summary>
    private static BackupResult CompactBackup(StorageEnvironment environment, string? destinationDirectory, Stream? stream, BackupOptions options,
        CancellationToken cancellationToken)
    {
        if (stream is null)
        {
            using var staging = new StagingDirectory(destinationDirectory!);
            return CompactInto(environment, staging, options, cancellationToken);
        }
        long started = Stopwatch.GetTimestamp();
        using var work = OwnedFolder.Create(environment.DirectoryPath, OwnedFolder.Compaction);
        string compacted = Path.Combine(work.Path, "compacted");
        BackupResult result;
        using (var staging = new StagingDirectory(compacted))
            result = CompactInto(environment, staging, options, cancellationToken);
        using var copy = StorageEnvironment.Open(new StorageOptions(compacted));
        var target = new StreamBackupTarget(stream, environment.EnvironmentId) { SourceTransactionId = result.TransactionId };
        var (_, bytes, files) = CopyHot(copy, target, options, cancellationToken);
        return result with { Bytes = bytes, Files = files, Duration = Stopwatch.GetElapsedTime(started) };
    }

    /// <summary>
    /// Writes the compacted data file of one read snapshot of <paramref name="source"/> into <paramref name="staging"/>
    /// (<see cref="CompactingCopy"/>, on the backup's low-priority thread), synced, and renames it into place. The copy
    /// is a new environment (a new id): it opens with no journal to replay.
    /// </summary>
    private static BackupResult CompactInto(StorageEnvironment source, StagingDirectory staging, BackupOptions options,
        CancellationToken cancellationToken)
    {
        var progress = options.Progress;
        long started = Stopwatch.GetTimestamp();
        using var running = source.Parts.Backups.Enter(source);
        source.ThrowIfDisposed();
        using var read = source.BeginRead();
        var copy = new CompactingCopy(read.Low, source.DataFilePath,
            progress is null ? null : (done, total) => progress.Report(new BackupProgress(done, total)),
            CopyPace.Start(options.MaxBytesPerSecond, options.Clock, cancellationToken), cancellationToken);
        long pages;
        using (var file = new SlicedFileWriter(staging.FilePath(StorageEnvironment.DataFileName)))
        {
            pages = BackgroundCopyThread.Run(() =>
            {
                long written = copy.Run(read.Low.RootTree, Guid.NewGuid(), read.TransactionId, file);
                file.Complete();
                return written;
            }, options.LowPriority);
        }
        staging.Commit();
        return new BackupResult(read.TransactionId, pages * Paging.StorageConstants.PageSize, 1, Stopwatch.GetElapsedTime(started));
    }
}
