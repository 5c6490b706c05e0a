using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.Arm;
using System.Runtime.Intrinsics.X86;
using static Cairn.Hashing.Xxh3Constants;

namespace Cairn.Hashing;

/// <summary>
/// XXH3's 64-bit hash with a seed (the reference library's <c>XXH3_64bits_withSeed</c>, System.IO.Hashing's
/// <c>XxHash3.HashToUInt64</c>), one-shot over a pointer and a length, written from xxHash's specification.
/// Cairn has its own because recovery always runs in a young process: System.IO.Hashing ships IL only, and its
/// loops run as tier-0 code for the first few hundred milliseconds, where every entry and page of a cold open is
/// checked. Every method here that runs a hash is <see cref="MethodImplOptions.AggressiveOptimization"/>: compiled
/// fully optimised at its first call, never re-jitted (profile-guided optimisation has nothing to add to a hash
/// kernel). The helpers are <see cref="MethodImplOptions.AggressiveInlining"/> as well, so they end up inside those,
/// and are still optimised at once if the JIT declines to inline one. Each input-size class is a method of its own
/// (<see cref="MethodImplOptions.NoInlining"/>): inlined all into one, they exhausted the JIT's inlining budget and
/// the 16-byte mixes became calls. Inputs up to 240 bytes take the short paths below, longer ones
/// <see cref="Xxh3Long"/>'s stripes.
/// </summary>
internal static unsafe class Xxh3
{
    /// <summary>The hash of <paramref name="length"/> bytes at <paramref name="input"/>, with the fastest kernel this machine has.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    public static ulong Hash64(byte* input, nuint length, ulong seed)
        => length <= MidSizeMax ? HashUpTo240(input, length, seed) : Xxh3Long.Hash(input, length, seed);

    /// <summary>The same hash with a chosen kernel for the long path (tests check each kernel this machine runs).</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal static ulong Hash64(byte* input, nuint length, ulong seed, Xxh3Kernel kernel)
        => length <= MidSizeMax ? HashUpTo240(input, length, seed) : Xxh3Long.Hash(input, length, seed, kernel);

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong HashUpTo240(byte* input, nuint length, ulong seed)
    {
        byte* secret = DefaultSecret;
        if (length <= 16)
            return HashUpTo16(input, length, seed, secret);
        return length <= 128 ? Hash17To128(input, length, seed, secret) : Hash129To240(input, length, seed);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong HashUpTo16(byte* input, nuint length, ulong seed, byte* secret)
    {
        if (length > 8)
            return Hash9To16(input, length, seed, secret);
        if (length >= 4)
            return Hash4To8(input, length, seed, secret);
        if (length > 0)
            return Hash1To3(input, length, seed, secret);
        return Xxh64Avalanche(seed ^ Read64(secret + 56) ^ Read64(secret + 64));
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong Hash1To3(byte* input, nuint length, ulong seed, byte* secret)
    {
        // The first, middle and last bytes (repeats for lengths 1 and 2) and the length, in one 32-bit word.
        uint combined = ((uint)input[0] << 16) | ((uint)input[length >> 1] << 24) | input[length - 1] | ((uint)length << 8);
        ulong bitflip = (Read32(secret) ^ Read32(secret + 4)) + seed;
        return Xxh64Avalanche(combined ^ bitflip);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong Hash4To8(byte* input, nuint length, ulong seed, byte* secret)
    {
        seed ^= (ulong)BinaryPrimitives.ReverseEndianness((uint)seed) << 32;
        uint first = Read32(input);
        uint last = Read32(input + length - 4);
        ulong bitflip = (Read64(secret + 8) ^ Read64(secret + 16)) - seed;
        ulong combined = last + ((ulong)first << 32);
        return Rrmxmx(combined ^ bitflip, length);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong Hash9To16(byte* input, nuint length, ulong seed, byte* secret)
    {
        ulong bitflipLow = (Read64(secret + 24) ^ Read64(secret + 32)) + seed;
        ulong bitflipHigh = (Read64(secret + 40) ^ Read64(secret + 48)) - seed;
        ulong low = Read64(input) ^ bitflipLow;
        ulong high = Read64(input + length - 8) ^ bitflipHigh;
        ulong accumulator = length + BinaryPrimitives.ReverseEndianness(low) + high + Multiply128Fold64(low, high);
        return Avalanche(accumulator);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong Hash17To128(byte* input, nuint length, ulong seed, byte* secret)
    {
        // Pairs of 16-byte pieces from both ends, working inwards; the pairs overlap when the length is not a multiple of 32.
        ulong accumulator = length * Prime64_1;
        if (length > 32)
        {
            if (length > 64)
            {
                if (length > 96)
                {
                    accumulator += Mix16(input + 48, secret + 96, seed);
                    accumulator += Mix16(input + length - 64, secret + 112, seed);
                }
                accumulator += Mix16(input + 32, secret + 64, seed);
                accumulator += Mix16(input + length - 48, secret + 80, seed);
            }
            accumulator += Mix16(input + 16, secret + 32, seed);
            accumulator += Mix16(input + length - 32, secret + 48, seed);
        }
        accumulator += Mix16(input, secret, seed);
        accumulator += Mix16(input + length - 16, secret + 16, seed);
        return Avalanche(accumulator);
    }

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong Hash129To240(byte* input, nuint length, ulong seed)
    {
        // The first 128 bytes against the secret's start; the rest against the secret from byte 3; the last 16 bytes
        // against bytes [119, 135). Hashing 184 bytes (a journal entry's header) is 12 of these mixes. Written out
        // with the secret's words as constants (SecretWord): the JIT does not unroll the loop, and an immediate
        // saves a load per word.
        ulong accumulator = length * Prime64_1
            + Mix16(input, SecretWord(0), SecretWord(8), seed)
            + Mix16(input + 16, SecretWord(16), SecretWord(24), seed)
            + Mix16(input + 32, SecretWord(32), SecretWord(40), seed)
            + Mix16(input + 48, SecretWord(48), SecretWord(56), seed)
            + Mix16(input + 64, SecretWord(64), SecretWord(72), seed)
            + Mix16(input + 80, SecretWord(80), SecretWord(88), seed)
            + Mix16(input + 96, SecretWord(96), SecretWord(104), seed)
            + Mix16(input + 112, SecretWord(112), SecretWord(120), seed);
        accumulator = Avalanche(accumulator);
        // 16-byte pieces 8 to 14, as many as the length holds whole (8 to 15 in all).
        if (length >= 144)
        {
            accumulator += Mix16(input + 128, SecretWord(3), SecretWord(11), seed);
            if (length >= 160)
            {
                accumulator += Mix16(input + 144, SecretWord(19), SecretWord(27), seed);
                if (length >= 176)
                {
                    accumulator += Mix16(input + 160, SecretWord(35), SecretWord(43), seed);
                    if (length >= 192)
                    {
                        accumulator += Mix16(input + 176, SecretWord(51), SecretWord(59), seed);
                        if (length >= 208)
                        {
                            accumulator += Mix16(input + 192, SecretWord(67), SecretWord(75), seed);
                            if (length >= 224)
                            {
                                accumulator += Mix16(input + 208, SecretWord(83), SecretWord(91), seed);
                                if (length >= 240)
                                    accumulator += Mix16(input + 224, SecretWord(99), SecretWord(107), seed);
                            }
                        }
                    }
                }
            }
        }
        accumulator += Mix16(input + length - 16, SecretWord(SecretSizeMin - 17), SecretWord(SecretSizeMin - 9), seed);
        return Avalanche(accumulator);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong Mix16(byte* input, ulong secretLow, ulong secretHigh, ulong seed)
        => Multiply128Fold64(Read64(input) ^ (secretLow + seed), Read64(input + 8) ^ (secretHigh - seed));

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong Mix16(byte* input, byte* secret, ulong seed)
        => Multiply128Fold64(Read64(input) ^ (Read64(secret) + seed), Read64(input + 8) ^ (Read64(secret + 8) - seed));

    /// <summary>The 128-bit product of two 64-bit values, its halves XORed together.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    internal static ulong Multiply128Fold64(ulong left, ulong right)
    {
        // The high half from the instruction that gives only it (mulx, umulh), the low half from a plain multiply:
        // Math.BigMul's out parameter makes the JIT store the low half to the stack and load it back.
        ulong high;
        if (Bmi2.X64.IsSupported)
            high = Bmi2.X64.MultiplyNoFlags(left, right);
        else if (ArmBase.Arm64.IsSupported)
            high = ArmBase.Arm64.MultiplyHigh(left, right);
        else
            high = Math.BigMul(left, right, out _);
        return (left * right) ^ high;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    internal static ulong Avalanche(ulong hash)
    {
        hash ^= hash >> 37;
        hash *= PrimeMx1;
        return hash ^ (hash >> 32);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong Xxh64Avalanche(ulong hash)
    {
        hash ^= hash >> 33;
        hash *= Prime64_2;
        hash ^= hash >> 29;
        hash *= Prime64_3;
        return hash ^ (hash >> 32);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static ulong Rrmxmx(ulong hash, nuint length)
    {
        hash ^= BitOperations.RotateLeft(hash, 49) ^ BitOperations.RotateLeft(hash, 24);
        hash *= PrimeMx2;
        hash ^= (hash >> 35) + length;
        hash *= PrimeMx2;
        return hash ^ (hash >> 28);
    }

    /// <summary>A little-endian 64-bit word at any alignment (the specification reads every word little-endian).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    internal static ulong Read64(byte* source)
    {
        ulong value = Unsafe.ReadUnaligned<ulong>(source);
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static uint Read32(byte* source)
    {
        uint value = Unsafe.ReadUnaligned<uint>(source);
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }
}
