using System.Buffers.Binary;
using System.Text;

namespace Cairn.Tests.Support;

/// <summary>Small helpers for keys and values in tests.</summary>
public static class Bytes
{
    public static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);

    /// <summary>A big-endian 8-byte key, so numeric order is key order.</summary>
    public static byte[] Key(long n)
    {
        var key = new byte[8];
        BinaryPrimitives.WriteInt64BigEndian(key, n);
        return key;
    }

    /// <summary>A deterministic value of <paramref name="length"/> bytes derived from <paramref name="seed"/>.</summary>
    public static byte[] Value(long seed, int length)
    {
        var value = new byte[length];
        new Random(unchecked((int)(seed * 31 + length))).NextBytes(value);
        return value;
    }
}

/// <summary>Orders byte arrays as the engine does: unsigned lexicographic.</summary>
public sealed class ByteArrayComparer : IComparer<byte[]>, IEqualityComparer<byte[]>
{
    public static readonly ByteArrayComparer Instance = new();

    public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);

    public bool Equals(byte[]? x, byte[]? y) => x.AsSpan().SequenceEqual(y);

    public int GetHashCode(byte[] obj)
    {
        var hash = new HashCode();
        hash.AddBytes(obj);
        return hash.ToHashCode();
    }
}
