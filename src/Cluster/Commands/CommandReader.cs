using System.Buffers.Binary;

namespace Cairn.Cluster.Commands;

/// <summary>
/// Reads a log entry's bytes front to back, refusing any read past its end with a <see cref="CorruptCommandException"/>
/// that names the entry's log index and the offset (from the entry's first byte) where the read went wrong.
/// </summary>
internal ref struct CommandReader(ReadOnlySpan<byte> bytes, long logIndex)
{
    private readonly ReadOnlySpan<byte> bytes = bytes;

    public int At { get; set; }

    /// <summary>The offset this reader may not read past.</summary>
    public readonly int End => bytes.Length;

    public ReadOnlySpan<byte> Take(int count)
    {
        if (count < 0 || count > bytes.Length - At)
            throw Fail(At, $"{count} bytes wanted, {bytes.Length - At} left");
        var taken = bytes.Slice(At, count);
        At += count;
        return taken;
    }

    public int TakeInt32() => BinaryPrimitives.ReadInt32LittleEndian(Take(4));

    public byte[] TakeBlock()
    {
        var lengthAt = At;
        var length = TakeInt32();
        if (length < 0 || length > bytes.Length - At)
            throw Fail(lengthAt, $"a length of {length} runs past the entry");
        return Take(length).ToArray();
    }

    public readonly CorruptCommandException Fail(long offset, string detail) => new(logIndex, offset, detail);
}
