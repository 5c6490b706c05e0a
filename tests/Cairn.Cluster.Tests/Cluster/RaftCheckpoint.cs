using System.Buffers.Binary;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>Reads DotNext 6.12's WriteAheadLog <c>checkpoint</c> file, where a node records how far its log is flushed.</summary>
internal static class RaftCheckpoint
{
    private const uint Version = 1;

    /// <summary>
    /// The last index the checkpoint says is flushed. Its layout (CheckpointVersion1, read from the 6.12.0 assembly):
    /// version (uint32) = 1, commit index (int64), last flushed index (int64), little-endian. The file is written
    /// write-through before the flusher publishes the index, so what it says is on disk.
    /// </summary>
    public static long FlushedThrough(string logPath)
    {
        using var file = new FileStream(Path.Combine(logPath, "checkpoint"), FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        Span<byte> bytes = stackalloc byte[20];
        file.ReadExactly(bytes);
        Assert.Equal(Version, BinaryPrimitives.ReadUInt32LittleEndian(bytes));
        return BinaryPrimitives.ReadInt64LittleEndian(bytes[12..]);
    }
}
