using System.Diagnostics;
using System.Runtime.InteropServices;
using Cairn.Pal;

namespace Cairn.Demo;

internal sealed record DataFileWriterResult(int Pages, int Runs, TimeSpan Elapsed);

/// <summary>Writes random pages through the process-wide data-file writer and reads them back.</summary>
internal static unsafe class DataFileWriterCheck
{
    private const int PageSize = 8192;

    public static DataFileWriterResult Run(string directory)
    {
        string path = Path.Combine(directory, "data-file-writer.probe");
        File.Delete(path);
        var random = new Random(42);
        var pageNumbers = Enumerable.Range(0, 4096).Where(_ => random.Next(3) != 0).ToArray(); // gaps make several runs
        byte* pages = (byte*)NativeMemory.AlignedAlloc((nuint)(pageNumbers.Length * PageSize), 4096);
        try
        {
            random.NextBytes(new Span<byte>(pages, pageNumbers.Length * PageSize));
            var ops = new PalWriteOp[pageNumbers.Length];
            for (int i = 0; i < ops.Length; i++)
                ops[i] = new PalWriteOp(pages + (long)i * PageSize, (long)pageNumbers[i] * PageSize, PageSize);

            var clock = Stopwatch.StartNew();
            using (var file = PalFile.Open(path, PalOpenFlags.Create))
            {
                file.WriteGather(ops);
                file.SyncGather();
                var readBack = new byte[PageSize];
                for (int i = 0; i < ops.Length; i++)
                {
                    file.Read(readBack, ops[i].Offset);
                    if (!readBack.AsSpan().SequenceEqual(new ReadOnlySpan<byte>(pages + (long)i * PageSize, PageSize)))
                        throw new InvalidOperationException($"Page {pageNumbers[i]} of {path} did not read back as written");
                }
            }
            int runs = 1 + pageNumbers.Zip(pageNumbers.Skip(1)).Count(p => p.Second != p.First + 1);
            return new DataFileWriterResult(pageNumbers.Length, runs, clock.Elapsed);
        }
        finally
        {
            NativeMemory.AlignedFree(pages);
            File.Delete(path);
        }
    }
}
