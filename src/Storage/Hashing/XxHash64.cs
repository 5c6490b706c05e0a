using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cairn.Hashing;

/// <summary>
/// XXH64, written from the published specification (xxHash's doc/xxhash_spec.md) because
/// System.IO.Hashing is not in the package registry here (docs/dependencies.md). The results are
/// the reference algorithm's bit for bit: page checksums written by one build must verify in any other.
/// </summary>
internal static class XxHash64
{
    private const ulong Prime1 = 0x9E3779B185EBCA87UL;
    private const ulong Prime2 = 0xC2B2AE3D27D4EB4FUL;
    private const ulong Prime3 = 0x165667B19E3779F9UL;
    private const ulong Prime4 = 0x85EBCA77C2B2AE63UL;
    private const ulong Prime5 = 0x27D4EB2F165667C5UL;

    private const int StripeLength = 32;

    public static ulong Hash(ReadOnlySpan<byte> data, ulong seed)
        => Hash(ref MemoryMarshal.GetReference(data), (nuint)data.Length, seed);

    public static unsafe ulong Hash(byte* data, long length, ulong seed)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        return Hash(ref Unsafe.AsRef<byte>(data), (nuint)length, seed);
    }

    // One body for both overloads: a managed ref keeps span inputs movable (no pinning) and a
    // pointer converts to one for free.
    // A compute kernel run on every commit: optimized from its first call (tier-0 code, with no inlining, is many
    // times slower, and a process spends its first second or more there); dynamic PGO has nothing to add to it.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static ulong Hash(ref byte data, nuint length, ulong seed)
    {
        ulong hash;
        nuint offset = 0;

        if (length >= StripeLength)
        {
            ulong acc1 = seed + Prime1 + Prime2;
            ulong acc2 = seed + Prime2;
            ulong acc3 = seed;
            ulong acc4 = seed - Prime1;

            // Four independent accumulators so the multiplies of one stripe overlap in the pipeline.
            nuint stripesEnd = length & ~(nuint)(StripeLength - 1);
            do
            {
                acc1 = Round(acc1, ReadUInt64(ref data, offset));
                acc2 = Round(acc2, ReadUInt64(ref data, offset + 8));
                acc3 = Round(acc3, ReadUInt64(ref data, offset + 16));
                acc4 = Round(acc4, ReadUInt64(ref data, offset + 24));
                offset += StripeLength;
            }
            while (offset < stripesEnd);

            hash = BitOperations.RotateLeft(acc1, 1) + BitOperations.RotateLeft(acc2, 7)
                 + BitOperations.RotateLeft(acc3, 12) + BitOperations.RotateLeft(acc4, 18);
            hash = MergeAccumulator(hash, acc1);
            hash = MergeAccumulator(hash, acc2);
            hash = MergeAccumulator(hash, acc3);
            hash = MergeAccumulator(hash, acc4);
        }
        else
        {
            hash = seed + Prime5;
        }

        hash += (ulong)length;

        nuint remaining = length - offset;
        while (remaining >= 8)
        {
            hash ^= Round(0, ReadUInt64(ref data, offset));
            hash = BitOperations.RotateLeft(hash, 27) * Prime1 + Prime4;
            offset += 8;
            remaining -= 8;
        }

        if (remaining >= 4)
        {
            hash ^= ReadUInt32(ref data, offset) * Prime1;
            hash = BitOperations.RotateLeft(hash, 23) * Prime2 + Prime3;
            offset += 4;
            remaining -= 4;
        }

        while (remaining > 0)
        {
            hash ^= Unsafe.Add(ref data, offset) * Prime5;
            hash = BitOperations.RotateLeft(hash, 11) * Prime1;
            offset++;
            remaining--;
        }

        return Avalanche(hash);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Round(ulong accumulator, ulong lane)
    {
        accumulator += lane * Prime2;
        accumulator = BitOperations.RotateLeft(accumulator, 31);
        return accumulator * Prime1;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong MergeAccumulator(ulong hash, ulong accumulator)
    {
        hash ^= Round(0, accumulator);
        return hash * Prime1 + Prime4;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Avalanche(ulong hash)
    {
        hash ^= hash >> 33;
        hash *= Prime2;
        hash ^= hash >> 29;
        hash *= Prime3;
        hash ^= hash >> 32;
        return hash;
    }

    // The specification reads lanes little-endian; on little-endian hosts the reversal folds away.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong ReadUInt64(ref byte data, nuint offset)
    {
        ulong value = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref data, offset));
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong ReadUInt32(ref byte data, nuint offset)
    {
        uint value = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref data, offset));
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }
}
