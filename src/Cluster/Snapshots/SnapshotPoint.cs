using System.Buffers.Binary;

namespace Cairn.Cluster.Snapshots;

/// <summary>
/// A committed log entry's index and term. As a node's snapshot it says: the environment durably holds every entry
/// up to <see cref="Index"/>, so DotNext may drop the log up to there and send the environment instead.
/// </summary>
internal readonly record struct SnapshotPoint(long Index, long Term)
{
    private const int Size = 16;

    public bool IsNone => Index <= 0;

    public static SnapshotPoint Read(Tree applied, ReadOnlySpan<byte> key)
        => applied.TryGet(key, out var value) && value.Length == Size
            ? new SnapshotPoint(BinaryPrimitives.ReadInt64LittleEndian(value), BinaryPrimitives.ReadInt64LittleEndian(value[8..]))
            : default;

    public void Write(Tree applied, ReadOnlySpan<byte> key)
    {
        Span<byte> value = stackalloc byte[Size];
        BinaryPrimitives.WriteInt64LittleEndian(value, Index);
        BinaryPrimitives.WriteInt64LittleEndian(value[8..], Term);
        applied.Put(key, value);
    }
}
