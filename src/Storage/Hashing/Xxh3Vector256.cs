using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
using static Cairn.Hashing.Xxh3Constants;

namespace Cairn.Hashing;

/// <summary>
/// <see cref="Xxh3Long"/>'s stripe loop on two 256-bit accumulators (lanes 0-3 and 4-7), kept in registers for the
/// whole input. With AVX2 the lane products are one <c>vpmuludq</c> and the neighbour swap one <c>vpshufd</c>.
/// </summary>
[SkipLocalsInit]
internal static unsafe class Xxh3Vector256
{
    public static bool IsSupported
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
        get => Vector256.IsHardwareAccelerated && BitConverter.IsLittleEndian;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static ulong HashLong(byte* input, nuint length, byte* secret)
    {
        Vector256<ulong> low = Vector256.Create(Prime32_3, Prime64_1, Prime64_2, Prime64_3);
        Vector256<ulong> high = Vector256.Create(Prime64_4, Prime32_2, Prime64_5, Prime32_1);
        Vector256<ulong> scrambleLow = Vector256.Load((ulong*)(secret + ScrambleSecretOffset));
        Vector256<ulong> scrambleHigh = Vector256.Load((ulong*)(secret + ScrambleSecretOffset + 32));
        byte* stripe = input;
        for (nuint blocks = (length - 1) / BlockLength; blocks > 0; blocks--)
        {
            byte* key = secret;
            for (int i = 0; i < StripesPerBlock; i++, stripe += StripeLength, key += SecretConsumeRate)
            {
                low = Accumulate(low, stripe, key);
                high = Accumulate(high, stripe + 32, key + 32);
            }
            low = Scramble(low, scrambleLow);
            high = Scramble(high, scrambleHigh);
        }
        byte* partialKey = secret;
        for (nuint stripes = Xxh3Long.StripesInLastBlock(length); stripes > 0; stripes--, stripe += StripeLength, partialKey += SecretConsumeRate)
        {
            low = Accumulate(low, stripe, partialKey);
            high = Accumulate(high, stripe + 32, partialKey + 32);
        }
        byte* last = input + length - StripeLength;
        low = Accumulate(low, last, secret + LastStripeSecretOffset);
        high = Accumulate(high, last + 32, secret + LastStripeSecretOffset + 32);

        ulong* accumulators = stackalloc ulong[8];
        low.Store(accumulators);
        high.Store(accumulators + 4);
        return Xxh3Long.Merge(accumulators, secret, length);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector256<ulong> Accumulate(Vector256<ulong> accumulator, byte* stripe, byte* key)
    {
        Vector256<ulong> data = Vector256.Load((ulong*)stripe);
        Vector256<ulong> keyed = data ^ Vector256.Load((ulong*)key);
        return accumulator + SwapNeighbours(data) + MultiplyLow32(keyed, Vector256.ShiftRightLogical(keyed, 32));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector256<ulong> Scramble(Vector256<ulong> accumulator, Vector256<ulong> key)
    {
        accumulator ^= Vector256.ShiftRightLogical(accumulator, 47);
        accumulator ^= key;
        // Times a 32-bit prime, modulo 2^64: the low half's full product plus the high half's low product moved up.
        Vector256<ulong> prime = Vector256.Create(Prime32_1);
        return MultiplyLow32(accumulator, prime) + Vector256.ShiftLeft(MultiplyLow32(Vector256.ShiftRightLogical(accumulator, 32), prime), 32);
    }

    /// <summary>Each 64-bit lane's low 32 bits times the other's, as a 64-bit product.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector256<ulong> MultiplyLow32(Vector256<ulong> left, Vector256<ulong> right)
    {
        if (Avx2.IsSupported)
            return Avx2.Multiply(left.AsUInt32(), right.AsUInt32());
        Vector256<ulong> mask = Vector256.Create(0xFFFF_FFFFUL);
        return (left & mask) * (right & mask);
    }

    /// <summary>Lanes 0 and 1 swapped, and 2 and 3: each lane's word goes to its neighbour's accumulator.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector256<ulong> SwapNeighbours(Vector256<ulong> value)
    {
        if (Avx2.IsSupported)
            return Avx2.Shuffle(value.AsUInt32(), 0b01_00_11_10).AsUInt64();
        return Vector256.Shuffle(value, Vector256.Create(1UL, 0UL, 3UL, 2UL));
    }
}
