using System.IO.Hashing;
using System.Runtime.CompilerServices;

namespace Cairn.Hashing;

/// <summary>
/// The checksum Cairn writes to disk and checks (pages, file header, journal entries): XXH3's 64-bit hash, bit for
/// bit the reference library's <c>XXH3_64bits_withSeed</c> (and System.IO.Hashing's <c>XxHash3</c>), so a checksum
/// written by one build verifies in any other. The one place that names the algorithm; callers choose the bytes and
/// the seed. Computed by Cairn's own <see cref="Xxh3"/>, which is compiled optimised from its first call (a cold
/// open checks every journal entry in a young process); <see cref="IncrementalChecksum"/> keeps System.IO.Hashing's
/// incremental hasher for bytes that arrive in pieces. Format version 1 (data file and journal entries) used XXH64,
/// which is kept only to recognise such a file (<see cref="ComputeFormatVersion1"/>).
/// </summary>
internal static unsafe class Checksums
{
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    public static ulong Compute(ReadOnlySpan<byte> data, ulong seed)
    {
        fixed (byte* pointer = data)
            return Xxh3.Hash64(pointer, (nuint)data.Length, seed);
    }

    /// <summary>Any length a pointer can cover, a journal payload over 2 GiB included, in one call.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    public static ulong Compute(byte* data, long length, ulong seed)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        return Xxh3.Hash64(data, checked((nuint)length), seed);
    }

    /// <summary>
    /// The checksum format version 1 sealed its file headers and journal entry headers with (XXH64, the
    /// reference library's <c>XXH64</c>). Never written any more: a reader whose checksum does not match tries
    /// it on a header that says version 1, so a file of that version is refused for its version, not reported
    /// as damaged (and a journal of it is not cut off as a torn tail).
    /// </summary>
    public static ulong ComputeFormatVersion1(ReadOnlySpan<byte> data, ulong seed) => XxHash64.HashToUInt64(data, unchecked((long)seed));
}
