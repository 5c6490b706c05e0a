using System.Buffers.Binary;

namespace Cairn.Cluster.Commands;

/// <summary>
/// A batch entry's bytes in the Raft log, little-endian: <c>kind:u8 = 2 | count:i32 | count × (length:i32 | body) |
/// xxh3:u64</c>, where each body is a command as <see cref="CommandCodec"/> writes it without its version byte and
/// checksum (<c>client:16 | sequence:i64 | treeLength:u16 | tree | operationCount:i32 | operations</c>), and the
/// checksum covers everything before it. The leader puts every command waiting for a replication round into one such
/// entry (docs/cluster.md, "Batching"). Each body is framed by its length, so a command whose content a node's checks
/// refuse is refused alone; a length that runs past the entry refuses the whole entry.
/// </summary>
internal static class BatchCodec
{
    public const byte Kind = 2;
    private const int HeaderBytes = 1 + 4;

    /// <summary>Encodes the bodies (<see cref="CommandCodec.WriteBody"/>) of the commands of one entry, in order.</summary>
    public static byte[] Encode(IReadOnlyList<byte[]> bodies)
    {
        var size = HeaderBytes + CommandCodec.ChecksumBytes;
        foreach (var body in bodies)
            size += 4 + body.Length;
        var bytes = new byte[size];
        var span = bytes.AsSpan();
        span[0] = Kind;
        BinaryPrimitives.WriteInt32LittleEndian(span[1..], bodies.Count);
        var at = HeaderBytes;
        foreach (var body in bodies)
        {
            BinaryPrimitives.WriteInt32LittleEndian(span[at..], body.Length);
            body.CopyTo(span[(at + 4)..]);
            at += 4 + body.Length;
        }

        CommandCodec.Seal(span);
        return bytes;
    }

    /// <summary>Decodes the commands of a batch entry whose checksum was checked (<paramref name="content"/>: the bytes before it).</summary>
    public static EntryCommand[] Decode(ReadOnlySpan<byte> content, long logIndex)
    {
        var reader = new CommandReader(content, logIndex) { At = 1 };
        var countAt = reader.At;
        var count = reader.TakeInt32();
        // Each command takes at least its length and id, so a count the entry cannot hold is refused before allocating.
        if (count < 1 || count > (content.Length - reader.At) / (4 + 24))
            throw reader.Fail(countAt, $"command count {count} does not fit the entry");
        var commands = new EntryCommand[count];
        for (var i = 0; i < count; i++)
        {
            var lengthAt = reader.At;
            var length = reader.TakeInt32();
            if (length < 24 || length > content.Length - reader.At)
                throw reader.Fail(lengthAt, $"command {i}'s length {length} does not fit the entry");
            var end = reader.At + length;
            var item = new CommandReader(content[..end], logIndex) { At = reader.At };
            var id = CommandCodec.ReadId(ref item);
            try
            {
                commands[i] = EntryCommand.Of(CommandCodec.ReadRest(ref item, id));
            }
            catch (ArgumentException e)
            {
                commands[i] = new EntryCommand(id, null, $"at byte {item.At}: {e.Message}");
            }

            if (item.At != end)
                throw reader.Fail(item.At, $"{end - item.At} bytes left after command {i}'s last operation");
            reader.At = end;
        }

        if (reader.At != content.Length)
            throw reader.Fail(reader.At, $"{content.Length - reader.At} bytes left after the last command");
        return commands;
    }
}
