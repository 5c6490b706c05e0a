namespace Cairn;

/// <summary>How to open an environment. Only <see cref="DirectoryPath"/> is required.</summary>
public sealed class StorageOptions
{
    public StorageOptions(string directoryPath)
    {
        ArgumentException.ThrowIfNullOrEmpty(directoryPath);
        DirectoryPath = directoryPath;
    }

    /// <summary>The environment's directory; created if missing. Holds <c>cairn.data</c> (and later <c>Journals/</c>).</summary>
    public string DirectoryPath { get; }

    /// <summary>How long <see cref="StorageEnvironment.BeginWrite()"/> waits for the open write transaction to finish.</summary>
    public TimeSpan WriteTransactionTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Committed page versions held in scratch memory past which a commit writes the flushable ones
    /// to the data file (those no reader can still need the previous version of).
    /// </summary>
    public long FlushThresholdBytes { get; init; } = 64L << 20;
}
