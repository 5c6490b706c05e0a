using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.Arm;
using System.Runtime.Intrinsics.X86;
using static Cairn.Hashing.Xxh3Constants;

namespace Cairn.Hashing;

/// <summary>
/// <see cref="Xxh3Long"/>'s stripe loop on four 128-bit accumulators, kept in registers for the whole input: the
/// kernel of arm64 (AdvSimd: <c>umull</c> of the narrowed halves, <c>ext</c> for the swap) and of x64 without AVX2
/// (SSE2: <c>pmuludq</c>, <c>pshufd</c>).
/// </summary>
[SkipLocalsInit]
internal static unsafe class Xxh3Vector128
{
    public static bool IsSupported
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
        get => Vector128.IsHardwareAccelerated && BitConverter.IsLittleEndian;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static ulong HashLong(byte* input, nuint length, byte* secret)
    {
        Vector128<ulong> a0 = Vector128.Create(Prime32_3, Prime64_1);
        Vector128<ulong> a1 = Vector128.Create(Prime64_2, Prime64_3);
        Vector128<ulong> a2 = Vector128.Create(Prime64_4, Prime32_2);
        Vector128<ulong> a3 = Vector128.Create(Prime64_5, Prime32_1);
        byte* scrambleKey = secret + ScrambleSecretOffset;
        Vector128<ulong> s0 = Vector128.Load((ulong*)scrambleKey);
        Vector128<ulong> s1 = Vector128.Load((ulong*)(scrambleKey + 16));
        Vector128<ulong> s2 = Vector128.Load((ulong*)(scrambleKey + 32));
        Vector128<ulong> s3 = Vector128.Load((ulong*)(scrambleKey + 48));
        byte* stripe = input;
        for (nuint blocks = (length - 1) / BlockLength; blocks > 0; blocks--)
        {
            byte* key = secret;
            for (int i = 0; i < StripesPerBlock; i++, stripe += StripeLength, key += SecretConsumeRate)
            {
                a0 = Accumulate(a0, stripe, key);
                a1 = Accumulate(a1, stripe + 16, key + 16);
                a2 = Accumulate(a2, stripe + 32, key + 32);
                a3 = Accumulate(a3, stripe + 48, key + 48);
            }
            a0 = Scramble(a0, s0);
            a1 = Scramble(a1, s1);
            a2 = Scramble(a2, s2);
            a3 = Scramble(a3, s3);
        }
        byte* partialKey = secret;
        for (nuint stripes = Xxh3Long.StripesInLastBlock(length); stripes > 0; stripes--, stripe += StripeLength, partialKey += SecretConsumeRate)
        {
            a0 = Accumulate(a0, stripe, partialKey);
            a1 = Accumulate(a1, stripe + 16, partialKey + 16);
            a2 = Accumulate(a2, stripe + 32, partialKey + 32);
            a3 = Accumulate(a3, stripe + 48, partialKey + 48);
        }
        byte* last = input + length - StripeLength;
        byte* lastKey = secret + LastStripeSecretOffset;
        a0 = Accumulate(a0, last, lastKey);
        a1 = Accumulate(a1, last + 16, lastKey + 16);
        a2 = Accumulate(a2, last + 32, lastKey + 32);
        a3 = Accumulate(a3, last + 48, lastKey + 48);

        ulong* accumulators = stackalloc ulong[8];
        a0.Store(accumulators);
        a1.Store(accumulators + 2);
        a2.Store(accumulators + 4);
        a3.Store(accumulators + 6);
        return Xxh3Long.Merge(accumulators, secret, length);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<ulong> Accumulate(Vector128<ulong> accumulator, byte* stripe, byte* key)
    {
        Vector128<ulong> data = Vector128.Load((ulong*)stripe);
        Vector128<ulong> keyed = data ^ Vector128.Load((ulong*)key);
        return accumulator + SwapNeighbours(data) + MultiplyLow32(keyed, Vector128.ShiftRightLogical(keyed, 32));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<ulong> Scramble(Vector128<ulong> accumulator, Vector128<ulong> key)
    {
        accumulator ^= Vector128.ShiftRightLogical(accumulator, 47);
        accumulator ^= key;
        // Times a 32-bit prime, modulo 2^64: the low half's full product plus the high half's low product moved up.
        Vector128<ulong> prime = Vector128.Create(Prime32_1);
        return MultiplyLow32(accumulator, prime) + Vector128.ShiftLeft(MultiplyLow32(Vector128.ShiftRightLogical(accumulator, 32), prime), 32);
    }

    /// <summary>Each 64-bit lane's low 32 bits times the other's, as a 64-bit product.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<ulong> MultiplyLow32(Vector128<ulong> left, Vector128<ulong> right)
    {
        if (Sse2.IsSupported)
            return Sse2.Multiply(left.AsUInt32(), right.AsUInt32());
        if (AdvSimd.IsSupported)
            return AdvSimd.MultiplyWideningLower(AdvSimd.ExtractNarrowingLower(left), AdvSimd.ExtractNarrowingLower(right));
        Vector128<ulong> mask = Vector128.Create(0xFFFF_FFFFUL);
        return (left & mask) * (right & mask);
    }

    /// <summary>Lanes 0 and 1 swapped: each lane's word goes to its neighbour's accumulator.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector128<ulong> SwapNeighbours(Vector128<ulong> value)
    {
        if (Sse2.IsSupported)
            return Sse2.Shuffle(value.AsUInt32(), 0b01_00_11_10).AsUInt64();
        if (AdvSimd.IsSupported)
            return AdvSimd.ExtractVector128(value, value, 1);
        return Vector128.Shuffle(value, Vector128.Create(1UL, 0UL));
    }
}
