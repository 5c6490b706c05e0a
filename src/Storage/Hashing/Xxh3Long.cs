using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using static Cairn.Hashing.Xxh3Constants;

namespace Cairn.Hashing;

/// <summary>
/// XXH3-64 of an input longer than 240 bytes: eight 64-bit accumulators take the input in 64-byte stripes, each
/// against the secret 8 bytes further on; after each block of 16 stripes they are scrambled; the input's last
/// 64 bytes are taken once more as the last stripe; then the accumulators are merged into the hash. A seed
/// other than 0 first derives a secret of its own from the default one (on the stack: hashing allocates
/// nothing). The stripe loop is in one kernel per instruction set (<see cref="Xxh3Kernel"/>).
/// </summary>
[SkipLocalsInit]
internal static unsafe class Xxh3Long
{
    /// <summary>The fastest kernel this machine accelerates; a constant once the JIT compiles the caller.</summary>
    internal static Xxh3Kernel BestKernel
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
        get => Xxh3Vector256.IsSupported ? Xxh3Kernel.Vector256
            : Xxh3Vector128.IsSupported ? Xxh3Kernel.Vector128
            : Xxh3Kernel.Scalar;
    }

    /// <summary>Whether <paramref name="kernel"/> runs here with vector instructions (the scalar kernel runs anywhere).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    internal static bool IsSupported(Xxh3Kernel kernel) => kernel switch
    {
        Xxh3Kernel.Vector256 => Xxh3Vector256.IsSupported,
        Xxh3Kernel.Vector128 => Xxh3Vector128.IsSupported,
        Xxh3Kernel.Scalar => true,
        _ => false,
    };

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static ulong Hash(byte* input, nuint length, ulong seed)
    {
        byte* derived = stackalloc byte[SecretLength];
        byte* secret = seed == 0 ? DefaultSecret : DeriveSecret(seed, derived, vectorised: true);
        if (Xxh3Vector256.IsSupported)
            return Xxh3Vector256.HashLong(input, length, secret);
        if (Xxh3Vector128.IsSupported)
            return Xxh3Vector128.HashLong(input, length, secret);
        return Xxh3Scalar.HashLong(input, length, secret);
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static ulong Hash(byte* input, nuint length, ulong seed, Xxh3Kernel kernel)
    {
        if (!IsSupported(kernel))
            throw new PlatformNotSupportedException($"The {kernel} kernel of XXH3 is not accelerated on this machine.");
        byte* derived = stackalloc byte[SecretLength];
        byte* secret = seed == 0 ? DefaultSecret : DeriveSecret(seed, derived, vectorised: kernel != Xxh3Kernel.Scalar);
        return kernel switch
        {
            Xxh3Kernel.Vector256 => Xxh3Vector256.HashLong(input, length, secret),
            Xxh3Kernel.Vector128 => Xxh3Vector128.HashLong(input, length, secret),
            _ => Xxh3Scalar.HashLong(input, length, secret),
        };
    }

    /// <summary>The seed's secret: the default secret's 64-bit words, plus the seed at even words and minus it at odd ones.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static byte* DeriveSecret(ulong seed, byte* destination, bool vectorised)
    {
        byte* source = DefaultSecret;
        if (vectorised && Vector128.IsHardwareAccelerated && BitConverter.IsLittleEndian)
        {
            Vector128<ulong> adjustment = Vector128.Create(seed, 0UL - seed);
            for (int offset = 0; offset < SecretLength; offset += 16)
                (Vector128.Load((ulong*)(source + offset)) + adjustment).Store((ulong*)(destination + offset));
        }
        else
        {
            for (int offset = 0; offset < SecretLength; offset += 16)
            {
                Write64(destination + offset, Xxh3.Read64(source + offset) + seed);
                Write64(destination + offset + 8, Xxh3.Read64(source + offset + 8) - seed);
            }
        }
        return destination;
    }

    /// <summary>The accumulators' starting values, in order.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    internal static void Initialise(ulong* accumulators)
    {
        accumulators[0] = Prime32_3;
        accumulators[1] = Prime64_1;
        accumulators[2] = Prime64_2;
        accumulators[3] = Prime64_3;
        accumulators[4] = Prime64_4;
        accumulators[5] = Prime32_2;
        accumulators[6] = Prime64_5;
        accumulators[7] = Prime32_1;
    }

    /// <summary>How many stripes the last, partial block has (the input's last byte is never in one: the last stripe covers it).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    internal static nuint StripesInLastBlock(nuint length) => (length - 1) % BlockLength / StripeLength;

    /// <summary>The eight accumulators folded pairwise against the secret from byte 11, onto the length.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    internal static ulong Merge(ulong* accumulators, byte* secret, nuint length)
    {
        ulong result = length * Prime64_1;
        byte* key = secret + MergeSecretOffset;
        for (int i = 0; i < 4; i++)
            result += Xxh3.Multiply128Fold64(accumulators[2 * i] ^ Xxh3.Read64(key + 16 * i), accumulators[2 * i + 1] ^ Xxh3.Read64(key + 16 * i + 8));
        return Xxh3.Avalanche(result);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Write64(byte* destination, ulong value)
        => Unsafe.WriteUnaligned(destination, BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value));
}
