using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;
using static Cairn.Hashing.Xxh3Constants;

namespace Cairn.Hashing;

/// <summary>
/// <see cref="Xxh3Long"/>'s stripe loop on one 512-bit accumulator: a stripe is one vector, so each stripe is one
/// load of input, one of secret, a <c>vpmuludq</c> and a <c>vpshufd</c>. Used where .NET reports 512-bit vectors
/// accelerated (AVX-512; .NET itself reports them not accelerated on the processors that slow down for them).
/// </summary>
[SkipLocalsInit]
internal static unsafe class Xxh3Vector512
{
    public static bool IsSupported
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
        get => Vector512.IsHardwareAccelerated && BitConverter.IsLittleEndian;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static ulong HashLong(byte* input, nuint length, byte* secret)
    {
        Vector512<ulong> accumulator = Vector512.Create(Prime32_3, Prime64_1, Prime64_2, Prime64_3, Prime64_4, Prime32_2, Prime64_5, Prime32_1);
        Vector512<ulong> scrambleKey = Vector512.Load((ulong*)(secret + ScrambleSecretOffset));
        byte* stripe = input;
        for (nuint blocks = (length - 1) / BlockLength; blocks > 0; blocks--)
        {
            byte* key = secret;
            for (int i = 0; i < StripesPerBlock; i++, stripe += StripeLength, key += SecretConsumeRate)
                accumulator = Accumulate(accumulator, stripe, key);
            accumulator = Scramble(accumulator, scrambleKey);
        }
        byte* partialKey = secret;
        for (nuint stripes = Xxh3Long.StripesInLastBlock(length); stripes > 0; stripes--, stripe += StripeLength, partialKey += SecretConsumeRate)
            accumulator = Accumulate(accumulator, stripe, partialKey);
        accumulator = Accumulate(accumulator, input + length - StripeLength, secret + LastStripeSecretOffset);

        ulong* accumulators = stackalloc ulong[8];
        accumulator.Store(accumulators);
        return Xxh3Long.Merge(accumulators, secret, length);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector512<ulong> Accumulate(Vector512<ulong> accumulator, byte* stripe, byte* key)
    {
        Vector512<ulong> data = Vector512.Load((ulong*)stripe);
        Vector512<ulong> keyed = data ^ Vector512.Load((ulong*)key);
        return accumulator + SwapNeighbours(data) + MultiplyLow32(keyed, Vector512.ShiftRightLogical(keyed, 32));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector512<ulong> Scramble(Vector512<ulong> accumulator, Vector512<ulong> key)
    {
        accumulator ^= Vector512.ShiftRightLogical(accumulator, 47);
        accumulator ^= key;
        // Times a 32-bit prime, modulo 2^64: the low half's full product plus the high half's low product moved up.
        Vector512<ulong> prime = Vector512.Create(Prime32_1);
        return MultiplyLow32(accumulator, prime) + Vector512.ShiftLeft(MultiplyLow32(Vector512.ShiftRightLogical(accumulator, 32), prime), 32);
    }

    /// <summary>Each 64-bit lane's low 32 bits times the other's, as a 64-bit product.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector512<ulong> MultiplyLow32(Vector512<ulong> left, Vector512<ulong> right)
    {
        if (Avx512F.IsSupported)
            return Avx512F.Multiply(left.AsUInt32(), right.AsUInt32());
        Vector512<ulong> mask = Vector512.Create(0xFFFF_FFFFUL);
        return (left & mask) * (right & mask);
    }

    /// <summary>Lanes 0 and 1 swapped, 2 and 3, and so on: each lane's word goes to its neighbour's accumulator.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static Vector512<ulong> SwapNeighbours(Vector512<ulong> value)
    {
        if (Avx512F.IsSupported)
            return Avx512F.Shuffle(value.AsUInt32(), 0b01_00_11_10).AsUInt64();
        return Vector512.Shuffle(value, Vector512.Create(1UL, 0UL, 3UL, 2UL, 5UL, 4UL, 7UL, 6UL));
    }
}
