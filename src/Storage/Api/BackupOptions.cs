namespace Cairn;

/// <summary>How <see cref="StorageEnvironment.Backup(string, BackupOptions?, CancellationToken)"/> copies an environment.</summary>
public sealed class BackupOptions
{
    /// <summary>
    /// Copy only the pages in use: the copy is rebuilt tree by tree into a new data file, so free space is
    /// left behind and the file is smaller (docs/design.md, "Backup and restore"). Slower than a plain backup.
    /// </summary>
    public bool Compact { get; init; }

    /// <summary>Receives bytes copied so far and the total expected, about once per MiB.</summary>
    public IProgress<BackupProgress>? Progress { get; init; }
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
