using System.IO.Hashing;

namespace Cairn.Hashing;

/// <summary>
/// The checksum Cairn writes to disk and checks (pages, file header, journal entries): XXH3's 64-bit hash
/// from System.IO.Hashing, bit for bit the reference library's <c>XXH3_64bits_withSeed</c>, so a checksum
/// written by one build verifies in any other. The one place that names the algorithm; callers choose the
/// bytes and the seed. Format version 1 (data file and journal entries) used XXH64, which is kept only to
/// recognise such a file (<see cref="ComputeFormatVersion1"/>).
/// </summary>
internal static unsafe class Checksums
{
    /// <summary>The longest input one span covers; longer ones are hashed in pieces of this size.</summary>
    internal const int MaxChunkLength = int.MaxValue;

    public static ulong Compute(ReadOnlySpan<byte> data, ulong seed) => XxHash3.HashToUInt64(data, unchecked((long)seed));

    public static ulong Compute(byte* data, long length, ulong seed)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        return length <= MaxChunkLength
            ? Compute(new ReadOnlySpan<byte>(data, (int)length), seed)
            : ComputeInChunks(data, length, seed, MaxChunkLength);
    }

    /// <summary>
    /// The same hash through the incremental API, <paramref name="chunkLength"/> bytes at a time: for inputs no
    /// span can cover (a journal payload over 2 GiB). It allocates the hasher, which such an input can afford.
    /// </summary>
    internal static ulong ComputeInChunks(byte* data, long length, ulong seed, int chunkLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(chunkLength);
        var hash = new XxHash3(unchecked((long)seed));
        for (long offset = 0; offset < length; offset += chunkLength)
            hash.Append(new ReadOnlySpan<byte>(data + offset, (int)Math.Min(chunkLength, length - offset)));
        return hash.GetCurrentHashAsUInt64();
    }

    /// <summary>
    /// The checksum format version 1 sealed its file headers and journal entry headers with (XXH64, the
    /// reference library's <c>XXH64</c>). Never written any more: a reader whose checksum does not match tries
    /// it on a header that says version 1, so a file of that version is refused for its version, not reported
    /// as damaged (and a journal of it is not cut off as a torn tail).
    /// </summary>
    public static ulong ComputeFormatVersion1(ReadOnlySpan<byte> data, ulong seed) => XxHash64.HashToUInt64(data, unchecked((long)seed));
}
