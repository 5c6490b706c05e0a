using System.Diagnostics;
using Cairn.Backups;

namespace Cairn;

public static partial class EnvironmentBackup
{
    // A compacting copy commits the destination every this many bytes of keys and values, so its scratch memory
    // stays bounded by the batch, not by the environment's size.
    private const long CompactBatchBytes = 16L << 20;

    /// <summary>
    /// Copies the closed (or backed-up) environment in <paramref name="sourceDirectory"/> into
    /// <paramref name="destinationDirectory"/> (new, or empty) with only the pages in use: every tree is rebuilt key
    /// by key into a new data file, so free space stays behind. The source is opened (recovering it if need be)
    /// and read in one snapshot; the destination appears only when complete and synced.
    /// </summary>
    /// <exception cref="IOException">The destination is not empty, or a file could not be read or written.</exception>
    /// <exception cref="EnvironmentLockedException">The source is open in another process or instance (back it up with <see cref="Backup(StorageEnvironment, string, BackupOptions?, CancellationToken)"/> and <see cref="BackupOptions.Compact"/> instead).</exception>
    public static BackupResult Compact(string sourceDirectory, string destinationDirectory, IProgress<BackupProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(sourceDirectory);
        ArgumentException.ThrowIfNullOrEmpty(destinationDirectory);
        long started = Stopwatch.GetTimestamp();
        OwnedFolder.TryDeleteStale(sourceDirectory);
        using var staging = new StagingDirectory(destinationDirectory);
        long transactionId;
        using (var source = StorageEnvironment.Open(new StorageOptions(sourceDirectory)))
        {
            using var destination = StorageEnvironment.Open(new StorageOptions(staging.Path));
            transactionId = CopyTrees(source, destination, progress, cancellationToken);
        }
        // The clean close flushed, synced and released the destination's journals: the data file is the whole copy. The
        // released journals it kept for reuse are empty space in a copy made to be small, so they stay behind.
        var (files, bytes) = DropRecyclableJournals(staging.Path);
        staging.Commit();
        return new BackupResult(transactionId, bytes, files, Stopwatch.GetElapsedTime(started));
    }

    /// <summary>Deletes the journals a closed environment keeps for reuse; returns the files and bytes left (what the copy holds).</summary>
    private static (int Files, long Bytes) DropRecyclableJournals(string directory)
    {
        string journals = Path.Combine(directory, Journal.Files.JournalFileName.DirectoryName);
        if (Directory.Exists(journals))
        {
            foreach (string file in Directory.GetFiles(journals))
            {
                if (Journal.Files.JournalFileName.TryParseRecyclable(Path.GetFileName(file), out _))
                    File.Delete(file);
            }
        }
        var left = Directory.GetFiles(directory, "*", SearchOption.AllDirectories);
        return (left.Length, left.Sum(file => new FileInfo(file).Length));
    }

    /// <summary>
    /// A compacting backup of an open environment: a plain hot backup staged on disk (scratch memory stays bounded
    /// as for any backup), compacted from there with <see cref="Compact"/>, then moved or streamed to the destination.
    /// The staged copies live in a work folder beside the destination directory, or for a stream beside the
    /// environment's folder (<see cref="OwnedFolder"/>, kind compact), deleted at the end; one a killed process left
    /// is deleted by the next backup, restore or compaction of the same destination or environment.
    /// </summary>
    private static BackupResult CompactBackup(StorageEnvironment environment, string? destinationDirectory, Stream? stream, BackupOptions options,
        CancellationToken cancellationToken)
    {
        long started = Stopwatch.GetTimestamp();
        using var work = OwnedFolder.Create(destinationDirectory ?? environment.DirectoryPath, OwnedFolder.Compaction);
        string raw = Path.Combine(work.Path, "raw");
        string compacted = Path.Combine(work.Path, "compacted");
        Backup(environment, raw, new BackupOptions { Progress = options.Progress, LowPriority = options.LowPriority }, cancellationToken);
        var result = Compact(raw, stream is null ? destinationDirectory! : compacted, options.Progress, cancellationToken);
        if (stream is not null)
        {
            using var copy = StorageEnvironment.Open(new StorageOptions(compacted));
            var target = new StreamBackupTarget(stream, environment.EnvironmentId) { SourceTransactionId = result.TransactionId };
            var (_, bytes, files) = CopyHot(copy, target, options, cancellationToken);
            result = result with { Bytes = bytes, Files = files };
        }
        return result with { Duration = Stopwatch.GetElapsedTime(started) };
    }

    private static long CopyTrees(StorageEnvironment source, StorageEnvironment destination, IProgress<BackupProgress>? progress, CancellationToken cancellationToken)
    {
        using var read = source.BeginRead();
        long total = 0;
        foreach (string name in read.GetTreeNames())
            total += read.OpenTree(name).Count;
        long copied = 0;
        var write = destination.BeginWrite();
        try
        {
            long batch = 0;
            foreach (string name in read.GetTreeNames())
            {
                var tree = write.CreateTree(name);
                using var cursor = read.OpenTree(name).CreateCursor();
                for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext())
                {
                    tree.Put(cursor.Key, cursor.Value);
                    batch += cursor.Key.Length + cursor.Value.Length;
                    copied++;
                    if (batch < CompactBatchBytes)
                        continue;
                    cancellationToken.ThrowIfCancellationRequested();
                    write.Commit();
                    write.Dispose();
                    write = destination.BeginWrite();
                    tree = write.OpenTree(name);
                    batch = 0;
                    progress?.Report(new BackupProgress(copied, total));
                }
            }
            write.Commit();
        }
        finally
        {
            write.Dispose();
        }
        progress?.Report(new BackupProgress(copied, total));
        return read.TransactionId;
    }
}
