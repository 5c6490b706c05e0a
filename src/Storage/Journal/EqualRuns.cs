using System.Diagnostics;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Cairn.Journal;

/// <summary>
/// Finds runs of bytes where two buffers agree (or, with no second buffer, runs of zero bytes),
/// 64 bytes at a time: the diff encoder's inner loop.
/// </summary>
internal static unsafe class EqualRuns
{
    /// <summary>
    /// The first index in [<paramref name="start"/>, <paramref name="end"/>) where at least
    /// <paramref name="minimum"/> (a power of two, at most 32) bytes of <paramref name="a"/> equal
    /// those of <paramref name="b"/> (null: zeros) — or, if <paramref name="runToEndCounts"/>,
    /// where a shorter such run reaching <paramref name="end"/> begins; <paramref name="end"/> if
    /// there is none. Only maximal runs count: the index is never inside a run that began at or
    /// after <paramref name="start"/>. Bytes at and after <paramref name="end"/> are never read.
    /// </summary>
    // A kernel run on every commit: optimized from its first call (tier-0 code is many times slower).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static int Find(byte* a, byte* b, int start, int end, int minimum, bool runToEndCounts)
    {
        Debug.Assert(BitOperations.IsPow2(minimum) && minimum <= 32);
        int position = start;
        int step = 64 - minimum + 1; // run starts checked per block: all their bytes lie in it
        ulong accepted = step == 64 ? ulong.MaxValue : (1UL << step) - 1;
        while (end - position >= 64)
        {
            ulong equal = b == null ? ZeroMask(a + position) : EqualMask(a + position, b + position);
            ulong runs = equal;
            for (int k = 1; k < minimum; k <<= 1)
                runs &= runs >> k;
            runs &= accepted;
            if (runs != 0)
                return position + BitOperations.TrailingZeroCount(runs);
            position += step;
        }
        for (; position < end; position++)
        {
            if (a[position] != (b == null ? 0 : b[position]))
                continue;
            int run = 1;
            while (position + run < end && run < minimum && a[position + run] == (b == null ? 0 : b[position + run]))
                run++;
            if (run >= minimum || (runToEndCounts && position + run == end))
                return position;
            position += run - 1;
        }
        return end;
    }

    /// <summary>The first index in [<paramref name="start"/>, <paramref name="end"/>) where the buffers differ (or <paramref name="a"/> is not zero); -1 if none.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int FirstDifference(byte* a, byte* b, int start, int end)
    {
        var left = new ReadOnlySpan<byte>(a + start, end - start);
        int index = b == null ? left.IndexOfAnyExcept((byte)0) : left.CommonPrefixLength(new ReadOnlySpan<byte>(b + start, end - start));
        return index < 0 || index == end - start ? -1 : start + index;
    }

    /// <summary>Bit i set when byte i of the 64 at <paramref name="a"/> equals that of <paramref name="b"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong EqualMask(byte* a, byte* b)
    {
        if (Vector256.IsHardwareAccelerated)
        {
            ulong low = Vector256.Equals(Vector256.Load(a), Vector256.Load(b)).ExtractMostSignificantBits();
            ulong high = Vector256.Equals(Vector256.Load(a + 32), Vector256.Load(b + 32)).ExtractMostSignificantBits();
            return low | (high << 32);
        }
        ulong mask = 0;
        for (int i = 0; i < 4; i++)
            mask |= (ulong)Vector128.Equals(Vector128.Load(a + 16 * i), Vector128.Load(b + 16 * i)).ExtractMostSignificantBits() << (16 * i);
        return mask;
    }

    /// <summary>Bit i set when byte i of the 64 at <paramref name="a"/> is zero.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong ZeroMask(byte* a)
    {
        if (Vector256.IsHardwareAccelerated)
        {
            ulong low = Vector256.Equals(Vector256.Load(a), Vector256<byte>.Zero).ExtractMostSignificantBits();
            ulong high = Vector256.Equals(Vector256.Load(a + 32), Vector256<byte>.Zero).ExtractMostSignificantBits();
            return low | (high << 32);
        }
        ulong mask = 0;
        for (int i = 0; i < 4; i++)
            mask |= (ulong)Vector128.Equals(Vector128.Load(a + 16 * i), Vector128<byte>.Zero).ExtractMostSignificantBits() << (16 * i);
        return mask;
    }
}
