using System.Buffers.Binary;
using System.Collections.Immutable;
using System.IO.Hashing;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Cairn.Cluster.Membership;

/// <summary>
/// The bytes of a cluster configuration, as the Raft log carries it and as each node's <c>members</c> file holds it:
/// <c>format:u8 | members | retired | xxh3:u64</c>, where each list is <c>count:i32</c> then addresses
/// (<c>kind:u8</c>: 1 IP, then <c>length:u8 | address | port:u16</c>; 2 DNS, then <c>length:u16 | UTF-8 host |
/// port:u16</c>), each list in ordinal order of the address text, so the same configuration is the same bytes on
/// every node.
/// </summary>
internal static class MembershipCodec
{
    public const byte FormatVersion = 1;
    private const byte IpKind = 1;
    private const byte DnsKind = 2;
    private const int ChecksumBytes = sizeof(ulong);

    /// <summary>Throws unless <paramref name="address"/> is a kind of address this codec writes.</summary>
    public static void CheckEncodable(EndPoint address)
    {
        ArgumentNullException.ThrowIfNull(address);
        if (address is not (IPEndPoint or DnsEndPoint { Host.Length: > 0 }))
            throw new ArgumentException($"A member is an IP or DNS end point; {address} ({address.GetType().Name}) is neither.", nameof(address));
    }

    public static byte[] Encode(IReadOnlySet<EndPoint> members, IReadOnlySet<EndPoint> retired)
    {
        var output = new List<byte>(64) { FormatVersion };
        WriteList(output, members);
        WriteList(output, retired);
        var bytes = new byte[output.Count + ChecksumBytes];
        output.CopyTo(bytes);
        BinaryPrimitives.WriteUInt64LittleEndian(bytes.AsSpan(output.Count), XxHash3.HashToUInt64(bytes.AsSpan(0, output.Count)));
        return bytes;
    }

    /// <summary>Reads what <see cref="Encode"/> wrote; <paramref name="source"/> names where the bytes came from.</summary>
    /// <exception cref="CorruptMembershipException">A wrong checksum, an unknown format or kind, or lengths past the end.</exception>
    public static (ImmutableHashSet<EndPoint> Members, ImmutableHashSet<EndPoint> Retired) Decode(ReadOnlySpan<byte> bytes, string source, long baseOffset = 0)
    {
        if (bytes.Length < 1 + ChecksumBytes)
            throw new CorruptMembershipException(source, baseOffset, $"{bytes.Length} bytes is shorter than any configuration");
        var body = bytes[..^ChecksumBytes];
        var stored = BinaryPrimitives.ReadUInt64LittleEndian(bytes[^ChecksumBytes..]);
        if (XxHash3.HashToUInt64(body) != stored)
            throw new CorruptMembershipException(source, baseOffset + body.Length, "the checksum does not match");
        if (body[0] != FormatVersion)
            throw new CorruptMembershipException(source, baseOffset, $"format version {body[0]}, this build reads {FormatVersion}");
        var reader = new Reader(body, 1, source, baseOffset);
        var members = reader.ReadList();
        var retired = reader.ReadList();
        if (reader.Position != body.Length)
            throw new CorruptMembershipException(source, baseOffset + reader.Position, "bytes left after the retired list");
        return (members, retired);
    }

    private static void WriteList(List<byte> output, IReadOnlySet<EndPoint> addresses)
    {
        Span<byte> scratch = stackalloc byte[4];
        BinaryPrimitives.WriteInt32LittleEndian(scratch, addresses.Count);
        output.AddRange(scratch);
        foreach (var address in addresses.OrderBy(a => a.ToString(), StringComparer.Ordinal))
            WriteAddress(output, address);
    }

    private static void WriteAddress(List<byte> output, EndPoint address)
    {
        Span<byte> port = stackalloc byte[2];
        switch (address)
        {
            case IPEndPoint ip:
                var raw = ip.Address.GetAddressBytes();
                output.Add(IpKind);
                output.Add((byte)raw.Length);
                output.AddRange(raw);
                BinaryPrimitives.WriteUInt16LittleEndian(port, (ushort)ip.Port);
                break;
            case DnsEndPoint dns:
                var host = Encoding.UTF8.GetBytes(dns.Host);
                Span<byte> length = stackalloc byte[2];
                BinaryPrimitives.WriteUInt16LittleEndian(length, checked((ushort)host.Length));
                output.Add(DnsKind);
                output.AddRange(length);
                output.AddRange(host);
                BinaryPrimitives.WriteUInt16LittleEndian(port, (ushort)dns.Port);
                break;
            default:
                CheckEncodable(address);
                break;
        }

        output.AddRange(port);
    }

    private ref struct Reader(ReadOnlySpan<byte> body, int position, string source, long baseOffset)
    {
        private readonly ReadOnlySpan<byte> body = body;

        public int Position { get; private set; } = position;

        public ImmutableHashSet<EndPoint> ReadList()
        {
            var count = BinaryPrimitives.ReadInt32LittleEndian(Take(4));
            if (count < 0 || count > body.Length)
                throw Corrupt(Position - 4, $"a list of {count} addresses");
            var list = ImmutableHashSet.CreateBuilder<EndPoint>();
            for (var i = 0; i < count; i++)
            {
                var at = Position;
                if (!list.Add(ReadAddress()))
                    throw Corrupt(at, "an address listed twice");
            }

            return list.ToImmutable();
        }

        private EndPoint ReadAddress()
        {
            var at = Position;
            switch (Take(1)[0])
            {
                case IpKind:
                    var length = Take(1)[0];
                    if (length is not (4 or 16))
                        throw Corrupt(at + 1, $"an IP address of {length} bytes");
                    var address = new IPAddress(Take(length));
                    return new IPEndPoint(address, BinaryPrimitives.ReadUInt16LittleEndian(Take(2)));
                case DnsKind:
                    var hostLength = BinaryPrimitives.ReadUInt16LittleEndian(Take(2));
                    var host = Encoding.UTF8.GetString(Take(hostLength));
                    if (host.Length == 0)
                        throw Corrupt(at + 1, "an empty host name");
                    return new DnsEndPoint(host, BinaryPrimitives.ReadUInt16LittleEndian(Take(2)), AddressFamily.Unspecified);
                case var kind:
                    throw Corrupt(at, $"address kind {kind}");
            }
        }

        private ReadOnlySpan<byte> Take(int count)
        {
            if (count > body.Length - Position)
                throw Corrupt(Position, $"{count} bytes wanted, {body.Length - Position} left");
            var taken = body.Slice(Position, count);
            Position += count;
            return taken;
        }

        private readonly CorruptMembershipException Corrupt(long at, string detail) => new(source, baseOffset + at, detail);
    }
}
