namespace Cairn;

/// <summary>How <see cref="EnvironmentBackup.Backup(StorageEnvironment, string, BackupOptions?, CancellationToken)"/> copies an environment.</summary>
public sealed class BackupOptions
{
    /// <summary>
    /// Copy only the pages in use: the copy is rebuilt tree by tree into a new data file, so free space is
    /// left behind and the file is smaller (docs/design.md, "Backup and restore"). Slower than a plain backup.
    /// Default: false, a plain copy.
    /// </summary>
    /// <remarks>
    /// <para>
    /// A compacting backup first makes a plain backup into a hidden work folder and compacts from there, so it needs
    /// free disk space for, at its peak, that intermediate plain copy and the compacted copy together:
    /// </para>
    /// <list type="bullet">
    /// <item>the plain copy is as large as this environment's data file (free pages included) plus the journals
    /// not yet synced when it starts and those written while it runs;</item>
    /// <item>the compacted copy is about the size of the pages in use (<see cref="EnvironmentInfo.PagesInUse"/>
    /// pages of 8 KiB) plus the free space its data file grows ahead by.</item>
    /// </list>
    /// <para>
    /// Where: for a directory destination <c>DEST</c>, the work folder is <c>.{name of DEST}.compact-{id}</c> in
    /// the destination's parent folder (the same file system as the destination), and the compacted copy is built
    /// beside it in <c>.{name of DEST}.staging-{id}</c> and renamed to <c>DEST</c>. For a stream, the work folder is
    /// <c>.{name of the environment's folder}.compact-{id}</c> in the parent folder of this environment's folder,
    /// and holds both copies; the compacted one is then streamed. The work folder is deleted when the backup ends,
    /// cancelled or failed. One left by a killed process (each such folder has a sibling <c>.lock</c> file its
    /// owner holds) is deleted by the next backup, restore or compaction into the same destination, or the next
    /// backup of this environment; a running backup's folders are never touched.
    /// </para>
    /// </remarks>
    public bool Compact { get; init; }

    /// <summary>
    /// Receives bytes copied so far and the total expected, about once per MiB, on the copy's own thread (a thread at
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
