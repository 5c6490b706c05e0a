using System.Diagnostics;
using System.Runtime.InteropServices;
using Cairn.Pal;

namespace Cairn.Demo;

/// <summary>How a durable write is made: the open mode, and how the file was prepared beforehand.</summary>
internal sealed record DurableWriteVariant(string Name, bool DirectDsync, bool PreZeroed)
{
    public static readonly DurableWriteVariant[] All =
    [
        new("O_DIRECT|O_DSYNC, pre-zeroed", DirectDsync: true, PreZeroed: true),
        new("O_DIRECT|O_DSYNC, fallocated", DirectDsync: true, PreZeroed: false),
        new("write+fdatasync, pre-zeroed", DirectDsync: false, PreZeroed: true),
        new("write+fdatasync, fallocated", DirectDsync: false, PreZeroed: false),
    ];
}

internal sealed record LatencyResult(string Variant, int WriteSize, int Writes, double MeanMicros, double P50Micros, double P99Micros, double WritesPerSecond);

/// <summary>
/// Times sequential durable writes into a file prepared the way a journal is. Every write goes to a
/// fresh offset, so "fallocated" measures writes into never-written (unwritten-extent) blocks.
/// </summary>
internal static unsafe class DurableWriteProbe
{
    public static LatencyResult Measure(string directory, DurableWriteVariant variant, int writeSize, int writes)
    {
        string path = Path.Combine(directory, $"durable-{writeSize}-{(variant.DirectDsync ? "direct" : "buffered")}-{(variant.PreZeroed ? "zeroed" : "fallocated")}.probe");
        File.Delete(path);
        long fileSize = (long)writeSize * writes;
        byte* buffer = (byte*)NativeMemory.AlignedAlloc((nuint)writeSize, 4096);
        try
        {
            new Span<byte>(buffer, writeSize).Fill(0xA5);
            using var file = Prepare(path, variant, fileSize);
            var micros = new double[writes];
            var clock = Stopwatch.StartNew();
            for (int i = 0; i < writes; i++)
            {
                long start = Stopwatch.GetTimestamp();
                file.Write(new ReadOnlySpan<byte>(buffer, writeSize), (long)i * writeSize);
                if (!variant.DirectDsync)
                    file.Sync();
                micros[i] = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
            }
            double seconds = clock.Elapsed.TotalSeconds;
            Array.Sort(micros);
            return new LatencyResult(variant.Name, writeSize, writes, micros.Average(),
                micros[writes / 2], micros[Math.Min(writes - 1, (int)(writes * 0.99))], writes / seconds);
        }
        finally
        {
            NativeMemory.AlignedFree(buffer);
            File.Delete(path);
        }
    }

    private static PalFile Prepare(string path, DurableWriteVariant variant, long size)
    {
        if (variant.DirectDsync && variant.PreZeroed)
            return PalFile.OpenJournal(path, size);

        var flags = PalOpenFlags.Create | (variant.DirectDsync ? PalOpenFlags.Direct | PalOpenFlags.DataSync : 0);
        var file = PalFile.Open(path, flags);
        file.Allocate(0, size);
        if (variant.PreZeroed)
            file.Zero(0, size);
        file.Sync();
        return file;
    }
}

internal static class LatencyReport
{
    public static void Print(IReadOnlyList<LatencyResult> results)
    {
        Console.WriteLine($"  {"variant",-32} {"size",8} {"writes",7} {"p50 us",9} {"p99 us",9} {"writes/s",10} {"vs first",9}");
        foreach (var group in results.GroupBy(r => r.WriteSize))
        {
            var baseline = group.First();
            foreach (var r in group)
            {
                Console.WriteLine($"  {r.Variant,-32} {r.WriteSize / 1024,6}KB {r.Writes,7} {r.P50Micros,9:F1} {r.P99Micros,9:F1} {r.WritesPerSecond,10:F0} {r.WritesPerSecond / baseline.WritesPerSecond,8:F2}x");
            }
        }
    }
}
