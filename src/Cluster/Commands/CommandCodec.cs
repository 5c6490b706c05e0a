using System.Buffers.Binary;
using System.IO.Hashing;
using System.Text;

namespace Cairn.Cluster.Commands;

/// <summary>
/// A command's bytes in the Raft log, little-endian:
/// <c>version:u8 | client:16 | sequence:i64 | treeLength:u16 | tree:UTF-8 | count:i32 |
/// count × (kind:u8 | keyLength:i32 | key | [valueLength:i32 | value, for a put]) | xxh3:u64</c>, the checksum over
/// everything before it. DotNext's log may be set to hash its entries too; this one is the command's own, so a
/// damaged or foreign entry is refused by the state machine whatever the log was configured with.
/// </summary>
internal static class CommandCodec
{
    public const byte Version = 1;
    private const int HeaderBytes = 1 + 16 + 8;
    private const int ChecksumBytes = 8;

    public static int SizeOf(ClusterCommand command)
    {
        var size = HeaderBytes + 2 + Encoding.UTF8.GetByteCount(command.Tree) + 4 + ChecksumBytes;
        foreach (var operation in command.Operations)
            size += 1 + 4 + operation.Key.Length + (operation.Value is { } value ? 4 + value.Length : 0);
        return size;
    }

    public static byte[] Encode(ClusterCommand command)
    {
        var bytes = new byte[SizeOf(command)];
        var span = bytes.AsSpan();
        span[0] = Version;
        command.Id.Client.TryWriteBytes(span.Slice(1, 16));
        BinaryPrimitives.WriteInt64LittleEndian(span.Slice(17, 8), command.Id.Sequence);
        var at = HeaderBytes;
        var treeLength = Encoding.UTF8.GetBytes(command.Tree, span[(at + 2)..]);
        BinaryPrimitives.WriteUInt16LittleEndian(span[at..], (ushort)treeLength);
        at += 2 + treeLength;
        BinaryPrimitives.WriteInt32LittleEndian(span[at..], command.Operations.Count);
        at += 4;
        foreach (var operation in command.Operations)
        {
            span[at++] = (byte)operation.Kind;
            at = WriteBlock(span, at, operation.Key);
            if (operation.Value is { } value)
                at = WriteBlock(span, at, value);
        }

        BinaryPrimitives.WriteUInt64LittleEndian(span[at..], XxHash3.HashToUInt64(span[..at]));
        return bytes;
    }

    /// <summary>Decodes an entry, or throws <see cref="CorruptCommandException"/> naming <paramref name="logIndex"/> and the offset.</summary>
    public static ClusterCommand Decode(ReadOnlySpan<byte> entry, long logIndex)
    {
        var reader = new Reader(entry, logIndex);
        if (entry.Length < HeaderBytes + 2 + 4 + ChecksumBytes)
            throw reader.Fail(0, $"{entry.Length} bytes is shorter than the smallest command");
        var body = entry[..^ChecksumBytes];
        var stored = BinaryPrimitives.ReadUInt64LittleEndian(entry[^ChecksumBytes..]);
        var computed = XxHash3.HashToUInt64(body);
        if (stored != computed)
            throw reader.Fail(body.Length, $"checksum {stored:x16} does not match the content's {computed:x16}");
        if (entry[0] != Version)
            throw reader.Fail(0, $"format version {entry[0]}; this build reads version {Version}");

        reader = new Reader(body, logIndex) { At = 1 };
        try
        {
            return DecodeBody(ref reader, body.Length);
        }
        catch (ArgumentException e)
        {
            // A key or tree name the command's own checks refuse (empty, too long): corrupt, not a caller's mistake.
            throw reader.Fail(reader.At, e.Message);
        }
    }

    private static ClusterCommand DecodeBody(ref Reader reader, int bodyLength)
    {
        var client = new Guid(reader.Take(16));
        var sequence = BinaryPrimitives.ReadInt64LittleEndian(reader.Take(8));
        var treeBytes = reader.Take(BinaryPrimitives.ReadUInt16LittleEndian(reader.Take(2)));
        var tree = Encoding.UTF8.GetString(treeBytes);
        var countAt = reader.At;
        var count = BinaryPrimitives.ReadInt32LittleEndian(reader.Take(4));
        // Each operation takes at least 5 bytes, so a count the entry cannot hold is refused before allocating for it.
        if (count < 1 || count > (bodyLength - reader.At) / 5)
            throw reader.Fail(countAt, $"operation count {count} does not fit the entry");
        var operations = new ClusterOperation[count];
        for (var i = 0; i < count; i++)
        {
            var kindAt = reader.At;
            var kind = (ClusterOperationKind)reader.Take(1)[0];
            var key = reader.TakeBlock();
            operations[i] = kind switch
            {
                ClusterOperationKind.Put => ClusterOperation.Put(key, reader.TakeBlock()),
                ClusterOperationKind.Delete => ClusterOperation.Delete(key),
                _ => throw reader.Fail(kindAt, $"unknown operation kind {(byte)kind}"),
            };
        }

        if (reader.At != bodyLength)
            throw reader.Fail(reader.At, $"{bodyLength - reader.At} bytes left after the last operation");
        return new ClusterCommand(new OperationId(client, sequence), tree, operations);
    }

    private static int WriteBlock(Span<byte> span, int at, byte[] block)
    {
        BinaryPrimitives.WriteInt32LittleEndian(span[at..], block.Length);
        block.CopyTo(span[(at + 4)..]);
        return at + 4 + block.Length;
    }

    private ref struct Reader(ReadOnlySpan<byte> bytes, long logIndex)
    {
        private readonly ReadOnlySpan<byte> bytes = bytes;

        public int At { get; set; }

        public ReadOnlySpan<byte> Take(int count)
        {
            if (count < 0 || count > bytes.Length - At)
                throw Fail(At, $"{count} bytes wanted, {bytes.Length - At} left");
            var taken = bytes.Slice(At, count);
            At += count;
            return taken;
        }

        public byte[] TakeBlock()
        {
            var lengthAt = At;
            var length = BinaryPrimitives.ReadInt32LittleEndian(Take(4));
            if (length < 0 || length > bytes.Length - At)
                throw Fail(lengthAt, $"a length of {length} runs past the entry");
            return Take(length).ToArray();
        }

        public readonly CorruptCommandException Fail(long offset, string detail) => new(logIndex, offset, detail);
    }
}
