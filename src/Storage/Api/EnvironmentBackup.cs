using System.Diagnostics;
using Cairn.Backups;
using Cairn.Journal;
using Cairn.Paging;
using Cairn.Shipping;

namespace Cairn;

/// <summary>
/// Backup, restore and compaction of environments: hot copies of an open <see cref="StorageEnvironment"/> or
/// <see cref="ReplicaEnvironment"/> into a directory or a stream, incremental backups, restoring a backup stream, and
/// compacting a closed environment. The backups are extension methods, so they read as <c>environment.Backup(...)</c>.
/// </summary>
public static partial class EnvironmentBackup
{
    /// <summary>
    /// Copies the environment, while writers go on, into <paramref name="destinationDirectory"/> (new, or empty):
    /// an environment directory that <see cref="StorageEnvironment.Open(StorageOptions)"/> opens to exactly the transactions up to
    /// <see cref="BackupResult.TransactionId"/>. The copy is built in a hidden sibling folder and renamed into place
    /// when complete and synced, so an interrupted backup leaves no directory that opens.
    /// </summary>
    /// <remarks>
    /// Scratch memory stays bounded: the flusher keeps flushing; only its syncs wait for the backup's end, so
    /// the journals written meanwhile stay on disk until then (docs/design.md, "Backup and restore").
    /// </remarks>
    /// <exception cref="IOException">The destination is not empty, or a file could not be read or written.</exception>
    /// <exception cref="DeviceIOException">A page of the data file could not be read (EIO); names the file and the page's offset.</exception>
    /// <exception cref="StorageFormatException">The data file ends before its pages do (cut short while open); names the file and where it ends.</exception>
    public static BackupResult Backup(this StorageEnvironment environment, string destinationDirectory)
        => Backup(environment, destinationDirectory, null, CancellationToken.None);

    /// <inheritdoc cref="Backup(StorageEnvironment, string)"/>
    /// <param name="environment">The environment to copy.</param>
    /// <param name="destinationDirectory">A new or empty directory for the copy.</param>
    /// <param name="options">Compaction and progress; null for the defaults.</param>
    /// <param name="cancellationToken">Stops the copy (nothing is left behind).</param>
    public static BackupResult Backup(this StorageEnvironment environment, string destinationDirectory, BackupOptions? options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(environment);
        ArgumentException.ThrowIfNullOrEmpty(destinationDirectory);
        return BackupTo(environment, destinationDirectory, stream: null, options, cancellationToken);
    }

    /// <summary>
    /// Copies the environment, while writers go on, into <paramref name="destination"/> as one self-checking
    /// backup stream (docs/on-disk-format.md, "Backup stream"), written front to back;
    /// <see cref="Restore"/> turns it back into an environment.
    /// </summary>
    /// <exception cref="IOException">A file could not be read, or the stream could not be written.</exception>
    /// <exception cref="DeviceIOException">A page of the data file could not be read (EIO); names the file and the page's offset.</exception>
    /// <exception cref="StorageFormatException">The data file ends before its pages do (cut short while open); names the file and where it ends.</exception>
    public static BackupResult Backup(this StorageEnvironment environment, Stream destination)
        => Backup(environment, destination, null, CancellationToken.None);

    /// <inheritdoc cref="Backup(StorageEnvironment, Stream)"/>
    /// <param name="environment">The environment to copy.</param>
    /// <param name="destination">Where the backup stream is written, front to back.</param>
    /// <param name="options">Compaction and progress; null for the defaults.</param>
    /// <param name="cancellationToken">Stops the copy (the stream then holds an incomplete backup that restore refuses).</param>
    public static BackupResult Backup(this StorageEnvironment environment, Stream destination, BackupOptions? options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(environment);
        ArgumentNullException.ThrowIfNull(destination);
        return BackupTo(environment, directory: null, destination, options, cancellationToken);
    }

    /// <summary>Copies the replica as of its last applied transaction, as <see cref="Backup(StorageEnvironment, string)"/> copies an environment.</summary>
    public static BackupResult Backup(this ReplicaEnvironment replica, string destinationDirectory)
        => Backup(EngineOf(replica), destinationDirectory, null, CancellationToken.None);

    /// <summary>Copies the replica, as <see cref="Backup(StorageEnvironment, string, BackupOptions?, CancellationToken)"/> copies an environment.</summary>
    public static BackupResult Backup(this ReplicaEnvironment replica, string destinationDirectory, BackupOptions? options, CancellationToken cancellationToken)
        => Backup(EngineOf(replica), destinationDirectory, options, cancellationToken);

    /// <summary>Copies the replica into a backup stream, as <see cref="Backup(StorageEnvironment, Stream)"/> copies an environment.</summary>
    public static BackupResult Backup(this ReplicaEnvironment replica, Stream destination)
        => Backup(EngineOf(replica), destination, null, CancellationToken.None);

    /// <summary>Copies the replica into a backup stream, as <see cref="Backup(StorageEnvironment, Stream, BackupOptions?, CancellationToken)"/> copies an environment.</summary>
    public static BackupResult Backup(this ReplicaEnvironment replica, Stream destination, BackupOptions? options, CancellationToken cancellationToken)
        => Backup(EngineOf(replica), destination, options, cancellationToken);

    /// <summary>
    /// An incremental backup: writes the committed entries after <paramref name="afterTransactionId"/> (the transaction of a
    /// full backup, or of the previous incremental one) to <paramref name="destination"/> as a shipped-entries stream
    /// (<see cref="ShippedEntryStream"/>). Restore: open the full backup with <see cref="ReplicaEnvironment.Open"/>, apply
    /// each incremental file in order with <see cref="ReplicaEnvironment.ApplyShippedEntries"/>, and
    /// <see cref="ReplicaEnvironment.Promote"/> it. Returns the last transaction written (<paramref name="afterTransactionId"/>
    /// when there was nothing newer): the next incremental backup starts after it.
    /// </summary>
    /// <exception cref="JournalEntriesNotRetainedException">The entries are gone: take a new full backup.</exception>
    public static long BackupIncremental(this StorageEnvironment environment, Stream destination, long afterTransactionId)
    {
        ArgumentNullException.ThrowIfNull(environment);
        ArgumentNullException.ThrowIfNull(destination);
        long last = afterTransactionId;
        ShippedEntryStream.Write(destination, Track(environment.ReadJournalEntries(afterTransactionId)));
        return last;

        IEnumerable<ShippedJournalEntry> Track(IEnumerable<ShippedJournalEntry> entries)
        {
            foreach (var entry in entries)
            {
                last = entry.TransactionId;
                yield return entry;
            }
        }
    }

    /// <summary>
    /// Makes <paramref name="emptyDirectory"/> (new, or empty) an environment from a backup stream written by
    /// <see cref="Backup(StorageEnvironment, Stream, BackupOptions?, CancellationToken)"/>. Every byte is checked before the directory
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
        var (transactionId, bytes, files) = new BackupStreamRestorer(backup, name, staging, StorageEnvironment.DataFileName)
            .Run(progress is null ? null : done => progress.Report(new BackupProgress(done, Math.Max(total, done))), cancellationToken);
        staging.Commit();
        return new BackupResult(transactionId, bytes, files, Stopwatch.GetElapsedTime(started));
    }

    private static StorageEnvironment EngineOf(ReplicaEnvironment replica)
    {
        ArgumentNullException.ThrowIfNull(replica);
        return replica.Engine;
    }

    /// <summary>
    /// Every backup of an open environment: into <paramref name="directory"/>, or into <paramref name="stream"/> when it is
    /// not null; a plain hot copy, or a compacting one (<see cref="BackupOptions.Compact"/>).
    /// </summary>
    private static BackupResult BackupTo(StorageEnvironment environment, string? directory, Stream? stream, BackupOptions? options,
        CancellationToken cancellationToken)
    {
        environment.ThrowIfDisposed();
        environment.Parts.Failure.ThrowIfFailed();
        OwnedFolder.TryDeleteStale(environment.DirectoryPath);
        options ??= new BackupOptions();
        if (options.Compact)
            return CompactBackup(environment, directory, stream, options, cancellationToken);
        long started = Stopwatch.GetTimestamp();
        using var staging = stream is null ? new StagingDirectory(directory!) : null;
        IBackupTarget target = staging is null ? new StreamBackupTarget(stream!, environment.EnvironmentId) : new DirectoryBackupTarget(staging);
        var (transactionId, bytes, files) = CopyHot(environment, target, options, cancellationToken);
        return new BackupResult(transactionId, bytes, files, Stopwatch.GetElapsedTime(started));
    }

    /// <summary>
    /// Holds the flusher's syncs, takes the synced header (P), and copies the data file and the journals from P. The
    /// environment does not close its files under the copy, and the copy does not start once a close goes on (<see cref="BackupGate"/>).
    /// </summary>
    private static (long TransactionId, long Bytes, int Files) CopyHot(StorageEnvironment environment, IBackupTarget target,
        BackupOptions options, CancellationToken cancellationToken)
    {
        var progress = options.Progress;
        var parts = environment.Parts;
        using var running = parts.Backups.Enter(environment);
        environment.ThrowIfDisposed();
        FileHeader synced = default;
        using var hold = parts.Flusher.HoldSync(() => synced = parts.Headers.Current);
        var copy = new HotCopy(parts.DataFile.FilePath, StorageEnvironment.DataFileName, parts.DataFile.PageCount, parts.Journal.DirectoryPath, synced,
            () => DurableEnd(parts), target, progress is null ? null : (done, total) => progress.Report(new BackupProgress(done, total)),
            CopyPace.Start(options.MaxBytesPerSecond, options.Clock, cancellationToken), options.LowPriority, cancellationToken);
        // The copy's reads, its CPU and its sliced write-back yield to the writers unless the caller waits on it (docs/design.md, "Backup and restore").
        return BackgroundCopyThread.Run(copy.Run, options.LowPriority);
    }

    /// <summary>
    /// The newest transaction whose entry is durable, and the end of that entry: the durable watermark's state, not
    /// the current one (lazy and group-committed transactions are published before their write).
    /// </summary>
    private static (long TransactionId, JournalPosition End) DurableEnd(EngineParts parts)
    {
        var state = parts.States.DurableState();
        return (state.TransactionId, state.JournalPosition);
    }
}
