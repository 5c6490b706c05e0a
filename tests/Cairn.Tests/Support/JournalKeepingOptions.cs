namespace Cairn.Tests.Support;

/// <summary>Options under which nothing is flushed or synced behind a test's back: every entry stays in the journals.</summary>
internal static class JournalKeepingOptions
{
    public static StorageOptions For(string directory) => new(directory)
    {
        FlushThresholdBytes = 1L << 30,
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
    };
}
