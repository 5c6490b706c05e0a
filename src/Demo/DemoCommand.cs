using System.Text.Json;
using Cairn.Pal;

namespace Cairn.Demo;

/// <summary>
/// The main job while the engine is being built: shows which I/O backend this machine gets and what
/// a durable journal write costs here, the figures every later design decision leans on.
/// </summary>
internal static class DemoCommand
{
    public static int Run(string[] args)
    {
        var options = DemoOptions.Parse(args);
        Directory.CreateDirectory(options.Directory);
        try
        {
            var fs = PalFileSystem.GetInfo(options.Directory);
            Console.WriteLine($"Scratch directory: {options.Directory}");
            Console.WriteLine($"  free {fs.FreeBytes / (1 << 20)} MiB of {fs.TotalBytes / (1 << 20)} MiB, fs type 0x{fs.FileSystemType:x}, " +
                              $"O_DIRECT {(fs.SupportsDirectIO ? "works" : "refused")}{(fs.IsVolatile ? ", VOLATILE (tmpfs): durability figures are meaningless here" : "")}");

            var backend = PalIo.GetBackend();
            Console.WriteLine($"Data-file writer backend: {backend}");

            var pageCheck = DataFileWriterCheck.Run(options.Directory);
            Console.WriteLine($"Data-file writer: wrote {pageCheck.Pages} random 8 KiB pages in {pageCheck.Runs} runs, synced, read back identical ({pageCheck.Elapsed.TotalMilliseconds:F1} ms)");

            var engine = EngineDemo.Run(options.Directory, options.EngineKeys);
            Console.WriteLine($"Engine: {engine.Keys} random keys put in batches of 1,000 in {engine.FillMilliseconds:F0} ms, " +
                              $"each read back in its own read transaction in {engine.ReadMilliseconds:F0} ms " +
                              $"({engine.ReadMilliseconds * 1e6 / engine.Keys:F0} ns per read); reopened and verified in {engine.ReopenMilliseconds:F0} ms");
            Console.WriteLine($"  verified: {engine.Verification.PagesInUse} pages in use, {engine.Verification.FreePages} free, " +
                              $"{engine.Verification.Trees} tree(s), {engine.Verification.Entries} entries");

            Console.WriteLine();
            Console.WriteLine("Durable write latency (each write returns only when its data is on disk):");
            var results = new List<LatencyResult>();
            foreach (int size in new[] { 4096, 256 * 1024 })
            {
                int writes = size == 4096 ? options.SmallWrites : options.LargeWrites;
                foreach (var variant in DurableWriteVariant.All)
                    results.Add(DurableWriteProbe.Measure(options.Directory, variant, size, writes));
            }
            LatencyReport.Print(results);

            var reportPath = Path.Combine(options.Directory, "pal-demo.json");
            File.WriteAllText(reportPath, JsonSerializer.Serialize(new
            {
                backend = backend.Backend.ToString(),
                backendSetupError = backend.SetupError,
                fileSystem = fs,
                dataFileWriter = pageCheck,
                engine,
                durableWrites = results,
            }, new JsonSerializerOptions { WriteIndented = true }));
            Console.WriteLine();
            Console.WriteLine($"JSON report: {reportPath}");
            return 0;
        }
        finally
        {
            if (!options.Keep)
                DeleteScratchFiles(options.Directory);
        }
    }

    private static void DeleteScratchFiles(string directory)
    {
        foreach (var file in Directory.EnumerateFiles(directory, "*.probe"))
            File.Delete(file);
    }
}
