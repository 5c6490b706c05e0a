namespace Cairn;

/// <summary>How <see cref="EnvironmentBackup.Backup(StorageEnvironment, string, BackupOptions?, CancellationToken)"/> copies an environment.</summary>
public sealed class BackupOptions
{
    /// <summary>
    /// Copy only the pages in use: the pages every tree reaches in one read snapshot are copied as they are into a new
    /// data file, numbered densely, so free space is left behind and the file is smaller (docs/design.md, "Backup and
    /// restore"). Default: false, a plain copy.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Writers go on during the copy; the snapshot keeps the page versions it reads until the copy ends, as any read
    /// transaction does. The copy is a new environment (an id of its own) with no journal. Disk space: the compacted
    /// copy, the size of the pages in use (<see cref="EnvironmentInfo.PagesInUse"/> pages of 8 KiB).
    /// </para>
    /// <para>
    /// Where: for a directory destination <c>DEST</c>, the copy is built in <c>.{name of DEST}.staging-{id}</c> in the
    /// destination's parent folder and renamed to <c>DEST</c>. For a stream, it is built in a work folder
    /// <c>.{name of the environment's folder}.compact-{id}</c> in the parent folder of this environment's folder, then
    /// streamed. The folder is deleted when the backup ends, cancelled or failed. One left by a killed process (each
    /// such folder has a sibling <c>.lock</c> file its owner holds) is deleted by the next backup, restore or
    /// compaction into the same destination, or the next backup of this environment; a running backup's folders are
    /// never touched.
    /// </para>
    /// </remarks>
    public bool Compact { get; init; }

    /// <summary>
    /// Receives bytes copied so far and the total expected after every chunk (a 32nd of the data file, 1 to 8 MiB; 1 MiB of a
    /// journal), on the copy's own thread (a thread at
    /// the lowest CPU priority, not the caller's). Default: null, no reports.
    /// </summary>
    public IProgress<BackupProgress>? Progress { get; init; }

    /// <summary>
    /// Runs the copy on a thread of its own at the lowest CPU and I/O priority, so that it takes only what the
    /// writers leave (docs/design.md, "Backup and restore"). False runs it on that thread at the caller's priority:
    /// for a copy someone waits on, such as a cluster snapshot streamed to a follower that cannot rejoin until it has
    /// it, where a copy starved by a loaded machine delays the follower by as long. Default: true.
    /// </summary>
    public bool LowPriority { get; init; } = true;

    /// <summary>
    /// A ceiling on the copy's rate, in bytes of the backup's files per second, or null for none. The copy waits
    /// whenever it is ahead of this rate counted from its start, so on average it never goes faster; it may go slower
    /// (the disk, a busy machine). Why: a copy out of the page cache runs at memory speed and costs the writers a core
    /// and the memory bus even at the lowest priority (<see cref="LowPriority"/>); a rate bounds that cost at the price
    /// of a longer copy (the size of the environment divided by the rate), during which the journals since the copy's
    /// start are kept (docs/design.md, "Backup and restore"). Applies to plain and compacting copies alike. Default:
    /// null, as fast as the machine lets the copy go. Unit: bytes per second; positive.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">Set to zero or less.</exception>
    public long? MaxBytesPerSecond
    {
        get => _maxBytesPerSecond;
        init
        {
            if (value is <= 0)
                throw new ArgumentOutOfRangeException(nameof(MaxBytesPerSecond), value, "a copy rate is a positive number of bytes per second, or null for none");
            _maxBytesPerSecond = value;
        }
    }

    private readonly long? _maxBytesPerSecond;

    /// <summary>What <see cref="MaxBytesPerSecond"/> measures time and waits with; tests give a clock of their own.</summary>
    internal TimeProvider Clock { get; init; } = TimeProvider.System;
}

/// <summary>How far a backup or restore has come.</summary>
/// <param name="BytesDone">Bytes copied so far.</param>
/// <param name="BytesTotal">Bytes the copy is expected to hold (it may still grow by the journals written meanwhile).</param>
public readonly record struct BackupProgress(long BytesDone, long BytesTotal);

/// <summary>What a backup or restore produced.</summary>
/// <param name="TransactionId">
/// The copy holds exactly the transactions up to this one: opening a plain copy yields this state. A compacted copy
/// holds this transaction's content but numbers its own transactions afresh.
/// </param>
/// <param name="Bytes">Bytes of files written (the data file and the journals recovery will replay).</param>
/// <param name="Files">Files written.</param>
/// <param name="Duration">How long it took.</param>
public sealed record BackupResult(long TransactionId, long Bytes, int Files, TimeSpan Duration);
