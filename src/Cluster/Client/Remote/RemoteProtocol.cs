using System.Buffers.Binary;
using System.Net;
using System.Text;

namespace Cairn.Cluster.Client.Remote;

/// <summary>
/// The client → node protocol (plain RPC beside Raft, docs/cluster.md): one request, then its response, on a TCP
/// connection, each a frame <c>length:i32 | kind:u8 | body</c>, little-endian. A write's body is the command as the
/// Raft log carries it (<see cref="Commands.CommandCodec"/>); a read's is <c>treeLength:u16 | tree | keyLength:i32 |
/// key [| minimumIndex:i64]</c>; a status request's and reply's are in <see cref="StatusCodec"/>.
/// </summary>
internal static class RemoteProtocol
{
    /// <summary>The largest frame either side accepts: a bigger length is a broken or hostile peer.</summary>
    public const int MaxFrameBytes = 64 << 20;

    public enum Request : byte { Write = 1, Read = 2, ReadApplied = 3, Status = 4 }

    public enum Reply : byte { Written = 1, Value = 2, NotLeader = 3, OutcomeUnknown = 4, SessionExpired = 5, Unavailable = 6, BadRequest = 7, Status = 8 }

    public static async Task WriteFrameAsync(Stream stream, byte kind, byte[] body, CancellationToken token)
    {
        var frame = new byte[5 + body.Length];
        BinaryPrimitives.WriteInt32LittleEndian(frame, 1 + body.Length);
        frame[4] = kind;
        body.CopyTo(frame, 5);
        await stream.WriteAsync(frame, token).ConfigureAwait(false);
        await stream.FlushAsync(token).ConfigureAwait(false);
    }

    /// <summary>Reads a frame, or null at a clean end of stream before it.</summary>
    public static async Task<(byte Kind, byte[] Body)?> ReadFrameAsync(Stream stream, CancellationToken token)
    {
        var header = new byte[5];
        var first = await stream.ReadAtLeastAsync(header, header.Length, throwOnEndOfStream: false, token).ConfigureAwait(false);
        if (first == 0)
            return null;
        if (first < header.Length)
            throw new IOException($"The peer closed the connection inside a frame header ({first} of 5 bytes).");
        var length = BinaryPrimitives.ReadInt32LittleEndian(header);
        if (length < 1 || length > MaxFrameBytes)
            throw new InvalidDataException($"A frame of {length} bytes; frames are 1 to {MaxFrameBytes} bytes.");
        var body = new byte[length - 1];
        await stream.ReadExactlyAsync(body, token).ConfigureAwait(false);
        return (header[4], body);
    }

    public static byte[] EncodeRead(string tree, byte[] key, long? minimumIndex)
    {
        var treeBytes = Encoding.UTF8.GetBytes(tree);
        if (treeBytes.Length > ushort.MaxValue)
            throw new ArgumentOutOfRangeException(nameof(tree), "A tree name is at most 65,535 UTF-8 bytes.");
        var body = new byte[2 + treeBytes.Length + 4 + key.Length + (minimumIndex.HasValue ? 8 : 0)];
        BinaryPrimitives.WriteUInt16LittleEndian(body, (ushort)treeBytes.Length);
        treeBytes.CopyTo(body, 2);
        BinaryPrimitives.WriteInt32LittleEndian(body.AsSpan(2 + treeBytes.Length), key.Length);
        key.CopyTo(body, 6 + treeBytes.Length);
        if (minimumIndex is { } index)
            BinaryPrimitives.WriteInt64LittleEndian(body.AsSpan(body.Length - 8), index);
        return body;
    }

    public static (string Tree, byte[] Key, long? MinimumIndex) DecodeRead(byte[] body, bool withIndex)
    {
        if (body.Length < 2)
            throw new InvalidDataException("A read request shorter than its tree length.");
        var treeLength = BinaryPrimitives.ReadUInt16LittleEndian(body);
        var keyAt = 2 + treeLength + 4;
        if (body.Length < keyAt)
            throw new InvalidDataException("A read request shorter than its tree name.");
        var keyLength = BinaryPrimitives.ReadInt32LittleEndian(body.AsSpan(keyAt - 4));
        if (keyLength < 0 || body.Length != keyAt + keyLength + (withIndex ? 8 : 0))
            throw new InvalidDataException($"A read request of {body.Length} bytes does not hold a key of {keyLength}.");
        var tree = Encoding.UTF8.GetString(body, 2, treeLength);
        var key = body.AsSpan(keyAt, keyLength).ToArray();
        long? index = withIndex ? BinaryPrimitives.ReadInt64LittleEndian(body.AsSpan(body.Length - 8)) : null;
        return (tree, key, index);
    }

    public static byte[] Text(string? text) => Encoding.UTF8.GetBytes(text ?? string.Empty);

    public static string Text(byte[] body) => Encoding.UTF8.GetString(body);

    /// <summary>A leader hint as sent (an IP endpoint's text), or null when there is none or it is not one.</summary>
    public static EndPoint? ParseLeader(byte[] body) => IPEndPoint.TryParse(Text(body), out var leader) ? leader : null;
}
