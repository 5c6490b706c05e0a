using System.Runtime.CompilerServices;
using static Cairn.Hashing.Xxh3Constants;

namespace Cairn.Hashing;

/// <summary>
/// <see cref="Xxh3Long"/>'s stripe loop without vector instructions, as the specification states it: the kernel of a
/// machine with no accelerated vectors (or a big-endian one), and the plain statement the vector kernels are tested against.
/// </summary>
[SkipLocalsInit]
internal static unsafe class Xxh3Scalar
{
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static ulong HashLong(byte* input, nuint length, byte* secret)
    {
        ulong* accumulators = stackalloc ulong[8];
        Xxh3Long.Initialise(accumulators);
        byte* stripe = input;
        byte* scrambleKey = secret + ScrambleSecretOffset;
        for (nuint blocks = (length - 1) / BlockLength; blocks > 0; blocks--)
        {
            for (int i = 0; i < StripesPerBlock; i++, stripe += StripeLength)
                Accumulate(accumulators, stripe, secret + i * SecretConsumeRate);
            Scramble(accumulators, scrambleKey);
        }
        nuint stripes = Xxh3Long.StripesInLastBlock(length);
        for (nuint i = 0; i < stripes; i++, stripe += StripeLength)
            Accumulate(accumulators, stripe, secret + i * SecretConsumeRate);
        Accumulate(accumulators, input + length - StripeLength, secret + LastStripeSecretOffset);
        return Xxh3Long.Merge(accumulators, secret, length);
    }

    /// <summary>Each lane adds its word to its neighbour's accumulator and the product of its keyed word's halves to its own.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Accumulate(ulong* accumulators, byte* stripe, byte* key)
    {
        for (int lane = 0; lane < 8; lane++)
        {
            ulong data = Xxh3.Read64(stripe + 8 * lane);
            ulong keyed = data ^ Xxh3.Read64(key + 8 * lane);
            accumulators[lane ^ 1] += data;
            accumulators[lane] += (ulong)(uint)keyed * (keyed >> 32);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Scramble(ulong* accumulators, byte* key)
    {
        for (int lane = 0; lane < 8; lane++)
        {
            ulong accumulator = accumulators[lane];
            accumulator ^= accumulator >> 47;
            accumulator ^= Xxh3.Read64(key + 8 * lane);
            accumulators[lane] = accumulator * Prime32_1;
        }
    }
}
