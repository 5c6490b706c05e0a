using System.Buffers.Binary;

namespace Cairn.Bench.KeyValue;

/// <summary>
/// The benchmark keys, identical for every store and every run: key i is i as a 128-bit big-endian
/// number, so byte order is numeric order; the random orders are Fisher-Yates permutations of the
/// same keys driven by SplitMix64, which (unlike System.Random) is fixed by its definition.
/// </summary>
public static class KeyGenerator
{
    /// <summary>The seed of the random fill order.</summary>
    public const ulong FillSeed = 0x43414952_4E46494C; // "CAIRNFIL"

    /// <summary>The seed of the random read order, deliberately unrelated to the fill order.</summary>
    public const ulong ReadSeed = 0x43414952_4E524541; // "CAIRNREA"

    /// <summary>Keys 0..count-1 in ascending order.</summary>
    public static KeySet Sequential(int count) => new(Bytes(Order(count)));

    /// <summary>The same keys in a deterministic random order.</summary>
    public static KeySet Shuffled(int count, ulong seed)
    {
        var order = Order(count);
        var state = seed;
        for (var i = count - 1; i > 0; i--)
        {
            var j = (int)(SplitMix64(ref state) % (ulong)(i + 1));
            (order[i], order[j]) = (order[j], order[i]);
        }
        return new KeySet(Bytes(order));
    }

    /// <summary>Writes key <paramref name="number"/> into <paramref name="destination"/>.</summary>
    public static void Write(ulong number, Span<byte> destination) =>
        BinaryPrimitives.WriteUInt128BigEndian(destination[..KeySet.KeySize], number);

    private static int[] Order(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        var order = new int[count];
        for (var i = 0; i < count; i++)
            order[i] = i;
        return order;
    }

    private static byte[] Bytes(int[] order)
    {
        var bytes = new byte[order.Length * KeySet.KeySize];
        for (var i = 0; i < order.Length; i++)
            Write((ulong)order[i], bytes.AsSpan(i * KeySet.KeySize, KeySet.KeySize));
        return bytes;
    }

    private static ulong SplitMix64(ref ulong state)
    {
        var z = state += 0x9E3779B97F4A7C15;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
        return z ^ (z >> 31);
    }
}
