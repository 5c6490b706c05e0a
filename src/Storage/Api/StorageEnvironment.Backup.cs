using System.Diagnostics;
using Cairn.Backups;
using Cairn.Journal;
using Cairn.Paging;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Copies the environment, while writers go on, into <paramref name="destinationDirectory"/> (new, or empty):
    /// an environment directory that <see cref="Open(StorageOptions)"/> opens to exactly the transactions up to
    /// <see cref="BackupResult.TransactionId"/>. The copy is built in a hidden sibling folder and renamed into place
    /// when complete and synced, so an interrupted backup leaves no directory that opens.
    /// </summary>
    /// <remarks>
    /// Scratch memory stays bounded: the flusher keeps flushing; only its syncs wait for the backup's end, so
    /// the journals written meanwhile stay on disk until then (docs/design.md, "Backup and restore").
    /// </remarks>
    /// <exception cref="IOException">The destination is not empty, or a file could not be read or written.</exception>
    public BackupResult Backup(string destinationDirectory) => Backup(destinationDirectory, null, CancellationToken.None);

    /// <inheritdoc cref="Backup(string)"/>
    /// <param name="destinationDirectory">A new or empty directory for the copy.</param>
    /// <param name="options">Compaction and progress; null for the defaults.</param>
    /// <param name="cancellationToken">Stops the copy (nothing is left behind).</param>
    public BackupResult Backup(string destinationDirectory, BackupOptions? options, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(destinationDirectory);
        ThrowIfDisposed();
        _failure.ThrowIfFailed();
        options ??= new BackupOptions();
        OwnedFolder.TryDeleteStale(DirectoryPath);
        if (options.Compact)
            return CompactBackup(destinationDirectory, options, cancellationToken, stream: null);
        long started = Stopwatch.GetTimestamp();
        using var staging = new StagingDirectory(destinationDirectory);
        var (transactionId, bytes, files) = CopyHot(new DirectoryBackupTarget(staging), options.Progress, cancellationToken);
        return new BackupResult(transactionId, bytes, files, Stopwatch.GetElapsedTime(started));
    }

    /// <summary>
    /// Copies the environment, while writers go on, into <paramref name="destination"/> as one self-checking
    /// backup stream (docs/on-disk-format.md, "Backup stream"), written front to back;
    /// <see cref="Restore"/> turns it back into an environment.
    /// </summary>
    /// <exception cref="IOException">A file could not be read, or the stream could not be written.</exception>
    public BackupResult Backup(Stream destination) => Backup(destination, null, CancellationToken.None);

    /// <inheritdoc cref="Backup(Stream)"/>
    /// <param name="destination">Where the backup stream is written, front to back.</param>
    /// <param name="options">Compaction and progress; null for the defaults.</param>
    /// <param name="cancellationToken">Stops the copy (the stream then holds an incomplete backup that restore refuses).</param>
    public BackupResult Backup(Stream destination, BackupOptions? options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ThrowIfDisposed();
        _failure.ThrowIfFailed();
        options ??= new BackupOptions();
        OwnedFolder.TryDeleteStale(DirectoryPath);
        if (options.Compact)
            return CompactBackup(null, options, cancellationToken, destination);
        long started = Stopwatch.GetTimestamp();
        var (transactionId, bytes, files) = CopyHot(new StreamBackupTarget(destination, EnvironmentId), options.Progress, cancellationToken);
        return new BackupResult(transactionId, bytes, files, Stopwatch.GetElapsedTime(started));
    }

    /// <summary>
    /// Makes <paramref name="emptyDirectory"/> (new, or empty) an environment from a backup stream written by
    /// <see cref="Backup(Stream, BackupOptions?, CancellationToken)"/>. Every byte is checked before the directory
    /// appears: the files are written into a hidden sibling folder, synced, and renamed into place only when the
    /// whole stream has been read and every checksum matched, so a damaged or truncated backup, or a process killed
    /// mid-restore, never leaves a directory that opens.
    /// </summary>
    /// <exception cref="StorageFormatException">The stream is not a complete, undamaged backup (the message names the stream and the offset).</exception>
    /// <exception cref="IOException">The directory is not empty, or a file could not be written.</exception>
    public static BackupResult Restore(Stream backup, string emptyDirectory, IProgress<BackupProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(backup);
        ArgumentException.ThrowIfNullOrEmpty(emptyDirectory);
        long started = Stopwatch.GetTimestamp();
        long total = backup.CanSeek ? backup.Length - backup.Position : 0;
        using var staging = new StagingDirectory(emptyDirectory);
        string name = backup is FileStream file ? file.Name : "backup stream";
        var (transactionId, bytes, files) = new BackupStreamRestorer(backup, name, staging, DataFileName)
            .Run(progress is null ? null : done => progress.Report(new BackupProgress(done, Math.Max(total, done))), cancellationToken);
        staging.Commit();
        return new BackupResult(transactionId, bytes, files, Stopwatch.GetElapsedTime(started));
    }

    /// <summary>Holds the flusher's syncs, takes the synced header (P), and copies the data file and the journals from P.</summary>
    private (long TransactionId, long Bytes, int Files) CopyHot(IBackupTarget target, IProgress<BackupProgress>? progress, CancellationToken cancellationToken)
    {
        // Counted before the closing check, as Dispose sets closing before it counts: one of the two sees the other.
        Interlocked.Increment(ref _backupsRunning);
        try
        {
            ThrowIfDisposed();
            ObjectDisposedException.ThrowIf(Volatile.Read(ref _closing) != 0, this);
            return CopyHotCounted(target, progress, cancellationToken);
        }
        finally
        {
            Interlocked.Decrement(ref _backupsRunning);
        }
    }

    private (long TransactionId, long Bytes, int Files) CopyHotCounted(IBackupTarget target, IProgress<BackupProgress>? progress, CancellationToken cancellationToken)
    {
        FileHeader synced = default;
        using var hold = _flusher.HoldSync(() => synced = _headers.Current);
        var copy = new HotCopy(_dataFile.FilePath, DataFileName, _journal.DirectoryPath, synced, DurableEnd, target,
            progress is null ? null : (done, total) => progress.Report(new BackupProgress(done, total)), cancellationToken);
        return copy.Run();
    }

    /// <summary>
    /// The newest transaction whose entry is durable, and the end of that entry: the durable watermark's state, not
    /// the current one (lazy and group-committed transactions are published before their write).
    /// </summary>
    private (long TransactionId, JournalPosition End) DurableEnd()
    {
        var state = _states.DurableState();
        return (state.TransactionId, state.JournalPosition);
    }
}
