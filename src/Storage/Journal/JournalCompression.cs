using K4os.Compression.LZ4;

namespace Cairn.Journal;

/// <summary>
/// Payload compression: one LZ4 block (K4os.Compression.LZ4, fast level) through its span API, which
/// allocates no managed memory. Chosen over Brotli q0: as fast to 1.6× faster to compress, 25-250× faster
/// to decompress (replay), for 0-26 % larger output (docs/decisions.md, "LZ4 journal compression").
/// A block records no lengths of its own: the entry header's UncompressedPayloadSize is the decoded size.
/// </summary>
internal static class JournalCompression
{
    /// <summary>LZ4's own input limit (LZ4_MAX_INPUT_SIZE); larger payloads are stored uncompressed. Its output bound still fits an int.</summary>
    public const int MaxInputLength = 0x7E000000;

    public static long MaxCompressedLength(int inputLength) => LZ4Codec.MaximumOutputSize(inputLength);

    public static bool TryCompress(ReadOnlySpan<byte> source, Span<byte> destination, out int written)
    {
        written = LZ4Codec.Encode(source, destination, LZ4Level.L00_FAST);
        return written > 0;
    }

    /// <summary>Decodes one block; false for a malformed block or one that does not fit (the decoder checks every bound).</summary>
    public static bool TryDecompress(ReadOnlySpan<byte> source, Span<byte> destination, out int written)
    {
        written = LZ4Codec.Decode(source, destination);
        return written >= 0;
    }
}
