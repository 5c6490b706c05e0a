using System.Buffers.Binary;

namespace Cairn.Stress.Workload;

/// <summary>
/// The workload's byte-level conventions. Every value it writes starts with BE64 of the transaction that
/// wrote it (its stamp), so a reader or a difference report can say which transaction a value came from.
/// </summary>
internal static class WorkloadValues
{
    public const int StampBytes = sizeof(long);

    public static byte[] BigEndian(long n)
    {
        var bytes = new byte[sizeof(long)];
        BinaryPrimitives.WriteInt64BigEndian(bytes, n);
        return bytes;
    }

    /// <summary>The transaction that wrote <paramref name="value"/>, or null for a value too short to carry one.</summary>
    public static long? StampOf(ReadOnlySpan<byte> value)
        => value.Length >= StampBytes ? BinaryPrimitives.ReadInt64BigEndian(value) : null;

    /// <summary>A counter or balance written by transaction <paramref name="i"/>: its stamp, then the number.</summary>
    public static byte[] StampedNumber(long i, long number)
    {
        var value = new byte[2 * sizeof(long)];
        BinaryPrimitives.WriteInt64BigEndian(value, i);
        BinaryPrimitives.WriteInt64BigEndian(value.AsSpan(sizeof(long)), number);
        return value;
    }

    /// <summary>The number of a <see cref="StampedNumber"/> value.</summary>
    public static long NumberOf(ReadOnlySpan<byte> value, string what)
        => value.Length == 2 * sizeof(long)
            ? BinaryPrimitives.ReadInt64BigEndian(value[sizeof(long)..])
            : throw new InvalidDataException($"{what} is {value.Length} bytes ({Convert.ToHexString(value)}), not a stamp and a number");

    /// <summary>The stamp of <paramref name="i"/>, then (from byte 8) hash-derived bytes up to <paramref name="length"/>.</summary>
    public static byte[] Filled(ulong state, long i, int length)
    {
        var value = new byte[Math.Max(length, StampBytes)];
        BinaryPrimitives.WriteInt64BigEndian(value, i);
        var rest = value.AsSpan(StampBytes);
        while (rest.Length >= 8)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(rest, state = Mix(state));
            rest = rest[8..];
        }
        for (int b = 0; b < rest.Length; b++)
            rest[b] = (byte)(state = Mix(state));
        return value;
    }

    /// <summary>SplitMix64's finaliser: every input bit affects every output bit.</summary>
    public static ulong Mix(ulong x)
    {
        x += 0x9E3779B97F4A7C15;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EB;
        return x ^ (x >> 31);
    }

    /// <summary>A number in [<paramref name="min"/>, <paramref name="max"/>] from <paramref name="hash"/>.</summary>
    public static int InRange(ulong hash, int min, int max) => min + (int)(hash % (ulong)((long)max - min + 1));
}
