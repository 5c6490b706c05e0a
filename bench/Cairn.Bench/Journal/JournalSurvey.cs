using System.Diagnostics;
using System.IO.Compression;
using Cairn.Journal;
using Cairn.Pal;
using K4os.Compression.LZ4;

namespace Cairn.Bench.Journal;

/// <summary>
/// <c>--journal-survey</c>: the numbers behind the journal's compression default. For real
/// transactions (<see cref="JournalWorkload"/>) it measures each codec's compressed size, compress
/// and decompress time, and what one O_DIRECT|O_DSYNC write of the resulting 4 KiB-aligned entry
/// costs on this disk, so "compress + write smaller" can be compared with "write as is".
/// </summary>
public static unsafe class JournalSurvey
{
    private sealed record Codec(string Name, Func<byte[], byte[], int> Compress, Func<byte[], int, byte[], int> Decompress);

    public static int Run(TextWriter output)
    {
        var codecs = new List<Codec> { new("none", (s, d) => s.Length, (s, n, d) => n) };
        foreach (int quality in new[] { 0, 1, 2, 4 })
        {
            int q = quality;
            codecs.Add(new($"brotli q{q} w22",
                (s, d) => BrotliEncoder.TryCompress(s, d, out int w, q, 22) ? w : throw new InvalidOperationException(),
                (s, n, d) => BrotliDecoder.TryDecompress(s.AsSpan(0, n), d, out int w) ? w : throw new InvalidOperationException()));
        }
        foreach (var level in new[] { LZ4Level.L00_FAST, LZ4Level.L03_HC })
        {
            var l = level;
            codecs.Add(new($"lz4 {l}",
                (s, d) => LZ4Codec.Encode(s, d, l) is > 0 and var w ? w : throw new InvalidOperationException(),
                (s, n, d) => LZ4Codec.Decode(s.AsSpan(0, n), d) is >= 0 and var w ? w : throw new InvalidOperationException()));
        }
        foreach (var level in new[] { CompressionLevel.Fastest, CompressionLevel.Optimal })
        {
            var l = level;
            codecs.Add(new($"deflate {l}", (s, d) => Deflate(s, d, l), Inflate));
        }

        var directory = BenchScratch.Directory("journal-survey");
        try
        {
            using var journal = PalFile.OpenJournal(Path.Combine(directory, "journal"), 256L << 20);
            output.WriteLine($"journal file: O_DIRECT {(journal.IsDirect ? "on" : "off (fell back)")}, {directory}");
            var writeCost = new Dictionary<long, double>();
            double WriteMicros(long size) => writeCost.TryGetValue(size, out var t) ? t : writeCost[size] = MeasureWrite(journal, size);

            output.WriteLine();
            output.WriteLine("| workload | pages | page bytes | codec | payload → stored | entry bytes | entry/pages | compress µs | decompress µs | write µs | compress + write µs |");
            output.WriteLine("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
            foreach (var kind in Enum.GetValues<JournalWorkloadKind>())
            {
                using var workload = JournalWorkload.Capture(kind);
                var payload = workload.Payload();
                var compressed = new byte[Math.Max(BrotliEncoder.GetMaxCompressedLength(payload.Length), LZ4Codec.MaximumOutputSize(payload.Length)) + 1024];
                var restored = new byte[payload.Length + 1];
                foreach (var codec in codecs)
                {
                    int stored = codec.Compress(payload, compressed);
                    if (codec.Name != "none")
                    {
                        int back = codec.Decompress(compressed, stored, restored);
                        if (back != payload.Length || !restored.AsSpan(0, back).SequenceEqual(payload))
                            throw new InvalidOperationException($"{codec.Name} did not round-trip");
                    }
                    double compress = codec.Name == "none" ? 0 : Median(() => codec.Compress(payload, compressed));
                    double decompress = codec.Name == "none" ? 0 : Median(() => codec.Decompress(compressed, stored, restored));
                    long entry = JournalEntryHeader.EntrySize(stored);
                    double write = WriteMicros(entry);
                    output.WriteLine($"| {kind} | {workload.PageRecords} | {workload.PageBytes:N0} | {codec.Name} | {payload.Length:N0} → {stored:N0} | {entry:N0} | " +
                        $"{(double)entry / workload.PageBytes:F3} | {compress:F0} | {decompress:F0} | {write:F0} | {compress + write:F0} |");
                }
            }

            output.WriteLine();
            output.WriteLine("| O_DIRECT\\|O_DSYNC write | median µs | MB/s |");
            output.WriteLine("| ---: | ---: | ---: |");
            foreach (long size in new long[] { 4096, 16384, 65536, 262144, 1 << 20, 4 << 20 })
                output.WriteLine($"| {size:N0} | {WriteMicros(size):F0} | {size / WriteMicros(size):F0} |");
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
        return 0;
    }

    /// <summary>Median wall time of one call, in µs, over enough calls for about 0.3 s (at least 5).</summary>
    private static double Median(Action action)
    {
        action();
        var once = Stopwatch.StartNew();
        action();
        int runs = (int)Math.Clamp(0.3 / Math.Max(once.Elapsed.TotalSeconds, 1e-6), 5, 2000);
        var times = new double[runs];
        for (int i = 0; i < runs; i++)
        {
            long start = Stopwatch.GetTimestamp();
            action();
            times[i] = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
        }
        Array.Sort(times);
        return times[runs / 2];
    }

    /// <summary>Median µs of one durable write of <paramref name="size"/> bytes, appending through the pre-zeroed journal like commits.</summary>
    private static double MeasureWrite(PalFile journal, long size)
    {
        using var buffer = new JournalBuffer(size);
        new Span<byte>(buffer.Pointer, (int)size).Fill(0x5A);
        long offset = 0;
        long fileSize = 256L << 20;
        return Median(() =>
        {
            if (offset + size > fileSize)
                offset = 0;
            var one = new PalBuffer(buffer.Pointer, size);
            journal.Write(new ReadOnlySpan<PalBuffer>(&one, 1), offset);
            offset += size;
        });
    }

    private static int Deflate(byte[] source, byte[] destination, CompressionLevel level)
    {
        using var stream = new MemoryStream(destination);
        using (var deflate = new DeflateStream(stream, level, leaveOpen: true))
            deflate.Write(source);
        return (int)stream.Position;
    }

    private static int Inflate(byte[] source, int length, byte[] destination)
    {
        using var deflate = new DeflateStream(new MemoryStream(source, 0, length), CompressionMode.Decompress);
        int total = 0;
        int read;
        while ((read = deflate.Read(destination, total, destination.Length - total)) > 0)
            total += read;
        return total;
    }
}
