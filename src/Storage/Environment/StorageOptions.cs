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
    /// Committed page versions held in scratch memory past which the next write transaction first writes the flushable ones
    /// to the data file (those no reader can still need the previous version of). Larger means a page
    /// rewritten by many commits reaches the disk fewer times: with 1,000 random puts per commit on a
    /// million keys, 256 MiB writes about a third of the bytes 64 MiB does (docs/benchmarks.md).
    /// </summary>
    public long FlushThresholdBytes { get; init; } = 256L << 20;
}
