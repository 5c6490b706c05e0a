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
    public const int ChecksumBytes = 8;
    private const int IdBytes = 16 + 8;

    public static int SizeOf(ClusterCommand command) => 1 + BodySize(command) + ChecksumBytes;

    /// <summary>The bytes of a command without the version and the checksum: what a batch entry carries per command.</summary>
    public static int BodySize(ClusterCommand command)
    {
        var size = IdBytes + 2 + Encoding.UTF8.GetByteCount(command.Tree) + 4;
        foreach (var operation in command.Operations)
            size += 1 + 4 + operation.Key.Length + (operation.Value is { } value ? 4 + value.Length : 0);
        return size;
    }

    public static byte[] Encode(ClusterCommand command)
    {
        var bytes = new byte[SizeOf(command)];
        bytes[0] = Version;
        var at = 1 + WriteBody(command, bytes.AsSpan(1));
        Seal(bytes.AsSpan(0, at + ChecksumBytes));
        return bytes;
    }

    /// <summary>Writes <paramref name="command"/>'s body (<see cref="BodySize"/> bytes) at the start of <paramref name="span"/>.</summary>
    public static int WriteBody(ClusterCommand command, Span<byte> span)
    {
        command.Id.Client.TryWriteBytes(span[..16]);
        BinaryPrimitives.WriteInt64LittleEndian(span.Slice(16, 8), command.Id.Sequence);
        var at = IdBytes;
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

        return at;
    }

    /// <summary>Writes the checksum of everything before the last <see cref="ChecksumBytes"/> of <paramref name="entry"/> into them.</summary>
    public static void Seal(Span<byte> entry)
        => BinaryPrimitives.WriteUInt64LittleEndian(entry[^ChecksumBytes..], XxHash3.HashToUInt64(entry[..^ChecksumBytes]));

    /// <summary>Checks an entry's checksum, or throws <see cref="CorruptCommandException"/>; returns the bytes before it.</summary>
    public static ReadOnlySpan<byte> Unseal(ReadOnlySpan<byte> entry, long logIndex, int smallest)
    {
        if (entry.Length < smallest)
            throw new CorruptCommandException(logIndex, 0, $"{entry.Length} bytes is shorter than the smallest command");
        var body = entry[..^ChecksumBytes];
        var stored = BinaryPrimitives.ReadUInt64LittleEndian(entry[^ChecksumBytes..]);
        var computed = XxHash3.HashToUInt64(body);
        if (stored != computed)
            throw new CorruptCommandException(logIndex, body.Length, $"checksum {stored:x16} does not match the content's {computed:x16}");
        return body;
    }

    /// <summary>Decodes an entry, or throws <see cref="CorruptCommandException"/> naming <paramref name="logIndex"/> and the offset.</summary>
    public static ClusterCommand Decode(ReadOnlySpan<byte> entry, long logIndex)
    {
        var body = Unseal(entry, logIndex, 1 + IdBytes + 2 + 4 + ChecksumBytes);
        if (entry[0] != Version)
            throw new CorruptCommandException(logIndex, 0, $"format version {entry[0]}; this build reads version {Version}");

        var reader = new CommandReader(body, logIndex) { At = 1 };
        var id = ReadId(ref reader);
        ClusterCommand command;
        try
        {
            command = ReadRest(ref reader, id);
        }
        catch (ArgumentException e)
        {
            // A key or tree name the command's own checks refuse (empty, too long): corrupt, not a caller's mistake.
            throw reader.Fail(reader.At, e.Message);
        }

        if (reader.At != body.Length)
            throw reader.Fail(reader.At, $"{body.Length - reader.At} bytes left after the last operation");
        return command;
    }

    /// <summary>Reads a body's operation id (not checked: <see cref="ReadRest"/> checks it with the rest).</summary>
    public static OperationId ReadId(ref CommandReader reader)
    {
        var client = new Guid(reader.Take(16));
        return new OperationId(client, BinaryPrimitives.ReadInt64LittleEndian(reader.Take(8)));
    }

    /// <summary>
    /// Reads the rest of a body up to the reader's end. Lengths that run past it throw <see cref="CorruptCommandException"/>;
    /// a command the checks of <see cref="ClusterCommand"/> refuse throws their <see cref="ArgumentException"/>.
    /// </summary>
    public static ClusterCommand ReadRest(ref CommandReader reader, OperationId id)
    {
        var treeBytes = reader.Take(BinaryPrimitives.ReadUInt16LittleEndian(reader.Take(2)));
        var tree = Encoding.UTF8.GetString(treeBytes);
        var countAt = reader.At;
        var count = reader.TakeInt32();
        // Each operation takes at least 5 bytes, so a count the entry cannot hold is refused before allocating for it.
        if (count < 1 || count > (reader.End - reader.At) / 5)
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

        return new ClusterCommand(id, tree, operations);
    }

    private static int WriteBlock(Span<byte> span, int at, byte[] block)
    {
        BinaryPrimitives.WriteInt32LittleEndian(span[at..], block.Length);
        block.CopyTo(span[(at + 4)..]);
        return at + 4 + block.Length;
    }
}
