using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace Cairn.Bench.Peers;

/// <summary>
/// A 16-byte key (both suites' key size) as a blittable struct, for the managed peers that store
/// fixed-size structs (FASTER, ZoneTree): two big-endian halves, so comparing High then Low is byte order.
/// </summary>
public struct Key16
{
    public ulong High;
    public ulong Low;

    public static Key16 From(ReadOnlySpan<byte> key)
    {
        if (key.Length != 16)
            throw new ArgumentException("the managed peers store 16-byte keys", nameof(key));
        return new Key16 { High = BinaryPrimitives.ReadUInt64BigEndian(key), Low = BinaryPrimitives.ReadUInt64BigEndian(key[8..]) };
    }

    public readonly void CopyTo(Span<byte> destination)
    {
        BinaryPrimitives.WriteUInt64BigEndian(destination, High);
        BinaryPrimitives.WriteUInt64BigEndian(destination[8..], Low);
    }
}

/// <summary>A 100-byte value (the benchmarks' value size) as an inline struct: FASTER needs no object log, ZoneTree no array per value.</summary>
[InlineArray(Size)]
public struct Value100
{
    public const int Size = 100;

    private byte _first;

    public static Value100 From(ReadOnlySpan<byte> value)
    {
        if (value.Length != Size)
            throw new ArgumentException($"the managed peers store {Size}-byte values", nameof(value));
        var result = default(Value100);
        value.CopyTo(result);
        return result;
    }
}
