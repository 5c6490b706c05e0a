using System.IO.Compression;

namespace Cairn.Journal;

/// <summary>
/// Payload compression: one-shot Brotli through the span APIs, which allocate no managed memory.
/// The stream is raw Brotli (RFC 7932); quality and window are the writer's choice and the window
/// is recorded in the stream, so decoding needs neither.
/// </summary>
internal static class JournalCompression
{
    /// <summary>The one-shot APIs take spans, so larger payloads are stored uncompressed.</summary>
    public const int MaxInputLength = int.MaxValue - 64 * 1024;

    public static long MaxCompressedLength(int inputLength) => BrotliEncoder.GetMaxCompressedLength(inputLength);

    public static bool TryCompress(ReadOnlySpan<byte> source, Span<byte> destination, int quality, int window, out int written)
        => BrotliEncoder.TryCompress(source, destination, out written, quality, window);

    public static bool TryDecompress(ReadOnlySpan<byte> source, Span<byte> destination, out int written)
        => BrotliDecoder.TryDecompress(source, destination, out written);
}
