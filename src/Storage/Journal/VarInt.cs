using System.Runtime.CompilerServices;

namespace Cairn.Journal;

/// <summary>Unsigned LEB128: 7 bits per byte, low bits first, high bit set on every byte but the last.</summary>
internal static unsafe class VarInt
{
    /// <summary>Diff operations never need more (their values are below 2^33).</summary>
    public const int MaxLength = 5;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Length(ulong value)
    {
        int length = 1;
        while (value >= 0x80)
        {
            value >>= 7;
            length++;
        }
        return length;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Write(byte* destination, ulong value)
    {
        int length = 0;
        while (value >= 0x80)
        {
            destination[length++] = (byte)(value | 0x80);
            value >>= 7;
        }
        destination[length++] = (byte)value;
        return length;
    }

    /// <summary>
    /// Reads a value of at most <see cref="MaxLength"/> bytes from the <paramref name="available"/>
    /// bytes at <paramref name="source"/>; false if it runs past them or is longer.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryRead(byte* source, long available, out ulong value, out int length)
    {
        value = 0;
        long limit = Math.Min(available, MaxLength);
        for (int i = 0; i < limit; i++)
        {
            byte b = source[i];
            value |= (ulong)(b & 0x7F) << (7 * i);
            if (b < 0x80)
            {
                length = i + 1;
                return true;
            }
        }
        length = 0;
        return false;
    }
}
