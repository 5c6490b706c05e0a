using System.Buffers.Binary;
using System.Net;
using System.Text;

namespace Cairn.Cluster.Client.Remote;

/// <summary>
/// The status request and reply of the client → node protocol (<see cref="RemoteProtocol"/>). Request body:
/// <c>version:u8</c>. Reply body: <c>version:u8 | term:i64 | lastLogIndex:i64 | commitIndex:i64 | appliedIndex:i64 |
/// node:text | leader:text | memberCount:u16 | (member:text | reachable:u8)*</c> (reachable: 0 unknown or not reported, 1 no, 2 yes), little-endian, each
/// text <c>length:u16 | UTF-8</c> of an address (<see cref="EndPointText"/>), an empty leader meaning none. A node
/// refuses a version it does not speak (a BadRequest naming the versions it does), and a reader refuses any body that
/// does not decode exactly.
/// </summary>
internal static class StatusCodec
{
    public const byte Version = 1;

    public static byte[] EncodeRequest() => [Version];

    /// <summary>Checks a status request; returns null if it is one this node answers, else why not.</summary>
    public static string? CheckRequest(byte[] body) => body switch
    {
        [Version] => null,
        [var other] => $"status version {other} is not spoken here (this node speaks {Version})",
        _ => $"a status request is 1 byte (its version), not {body.Length}",
    };

    public static byte[] EncodeReply(ClusterNodeStatus status)
    {
        using var buffer = new MemoryStream();
        using (var writer = new BinaryWriter(buffer, Encoding.UTF8, leaveOpen: true))
        {
            writer.Write(Version);
            writer.Write(status.Term);
            writer.Write(status.LastLogIndex);
            writer.Write(status.CommitIndex);
            writer.Write(status.AppliedIndex);
            WriteText(writer, EndPointText.Format(status.Node));
            WriteText(writer, status.Leader is null ? "" : EndPointText.Format(status.Leader));
            writer.Write(checked((ushort)status.Members.Count));
            foreach (var member in status.Members)
            {
                WriteText(writer, EndPointText.Format(member.EndPoint));
                writer.Write(member.Reachable switch { null => (byte)0, false => (byte)1, true => (byte)2 });
            }
        }

        return buffer.ToArray();
    }

    /// <exception cref="InvalidDataException">The body is not a status reply of this version.</exception>
    public static ClusterNodeStatus DecodeReply(byte[] body)
    {
        var reader = new Reader(body);
        var version = reader.Byte();
        if (version != Version)
            throw new InvalidDataException($"A status reply of version {version}; this client reads version {Version}.");
        var term = reader.Int64();
        var last = reader.Int64();
        var commit = reader.Int64();
        var applied = reader.Int64();
        var node = reader.Address();
        var leader = reader.AddressOrNone();
        var members = new ClusterMemberView[reader.UInt16()];
        for (var i = 0; i < members.Length; i++)
        {
            var member = reader.Address();
            bool? reachable = reader.Byte() switch
            {
                0 => null,
                1 => false,
                2 => true,
                var flag => throw new InvalidDataException($"A status reply's member {i} has reachability {flag} (0 unknown, 1 no, 2 yes)."),
            };
            members[i] = new ClusterMemberView(member, reachable);
        }

        reader.End();
        if (term < 0 || applied < 0 || commit < 0 || last < 0)
            throw new InvalidDataException($"A status reply with a negative index or term (term {term}, last {last}, commit {commit}, applied {applied}).");
        return new ClusterNodeStatus(node, leader, term, last, commit, applied, members);
    }

    private static void WriteText(BinaryWriter writer, string text)
    {
        var bytes = Encoding.UTF8.GetBytes(text);
        writer.Write(checked((ushort)bytes.Length));
        writer.Write(bytes);
    }

    /// <summary>Reads a reply's fields, refusing one that ends early or runs on.</summary>
    private ref struct Reader(byte[] body)
    {
        private int offset;

        public byte Byte() => Take(1)[0];

        public ushort UInt16() => BinaryPrimitives.ReadUInt16LittleEndian(Take(2));

        public long Int64() => BinaryPrimitives.ReadInt64LittleEndian(Take(8));

        public string Text()
        {
            var length = UInt16();
            return Encoding.UTF8.GetString(Take(length));
        }

        public EndPoint Address() => AddressOrNone()
            ?? throw new InvalidDataException($"A status reply has an empty address before offset {offset}.");

        public EndPoint? AddressOrNone()
        {
            var at = offset;
            var text = Text();
            if (text.Length == 0)
                return null;
            return EndPointText.TryParse(text, out var address)
                ? address
                : throw new InvalidDataException($"A status reply holds '{text}' at offset {at}, which is not an address.");
        }

        public readonly void End()
        {
            if (offset != body.Length)
                throw new InvalidDataException($"A status reply of {body.Length} bytes has {body.Length - offset} bytes after its last member.");
        }

        private ReadOnlySpan<byte> Take(int count)
        {
            if (body.Length - offset < count)
                throw new InvalidDataException($"A status reply of {body.Length} bytes ends at offset {offset}, inside a field of {count} bytes.");
            var span = body.AsSpan(offset, count);
            offset += count;
            return span;
        }
    }
}
