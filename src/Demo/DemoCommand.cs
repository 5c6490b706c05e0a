using System.Text.Json;
using Cairn.Pal;
using Cairn.Reports;
using Microsoft.Extensions.Logging;

namespace Cairn.Demo;

/// <summary>
/// The main job: which I/O backend this machine gets; a fill and read of the engine; durable commits
/// against the disk's raw durable write rate; a writer killed with SIGKILL mid-stream and the
/// recovery that follows, checked; the I/O statistics of it all, printed and written as JSON; and what a
/// durable write costs here in each of the ways a journal could be written; and the transaction merger
/// with concurrent callers against the single-writer rate; a root and 8 branches committing at once with
/// shared journals against separate ones.
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
            if (options.SharedJournalRounds > 0)
                return RunSharedJournalRounds(options);

            var pageCheck = DataFileWriterCheck.Run(options.Directory);
            Console.WriteLine($"Data-file writer: wrote {pageCheck.Pages} random 8 KiB pages in {pageCheck.Runs} runs, synced, read back identical ({pageCheck.Elapsed.TotalMilliseconds:F1} ms)");

            var engine = EngineDemo.Run(options.Directory, options.EngineKeys);
            Console.WriteLine($"Engine: {engine.Keys} random keys put in batches of 1,000 in {engine.FillMilliseconds:F0} ms, " +
                              $"each read back in its own read transaction in {engine.ReadMilliseconds:F0} ms " +
                              $"({engine.ReadMilliseconds * 1e6 / engine.Keys:F0} ns per read); reopened and verified in {engine.ReopenMilliseconds:F0} ms");
            Console.WriteLine($"  verified: {engine.Verification.PagesInUse} pages in use, {engine.Verification.FreePages} free, " +
                              $"{engine.Verification.Trees} tree(s), {engine.Verification.Entries} entries");

            var (commits, commitStats) = DurableCommitDemo.Run(options.Directory, options.Commits);
            Console.WriteLine();
            Console.WriteLine($"Durable commits (one 100-byte put each, each durable when Commit returns): {commits.Commits} in a row, " +
                              $"{commits.CommitsPerSecond:F0} commits/s; raw 4 KiB O_DIRECT|O_DSYNC writes on this disk in the same run: " +
                              $"{commits.RawWritesPerSecond:F0}/s; ratio {commits.RatioToRaw:F2}");
            Console.WriteLine($"  journal write p50 {commits.JournalWriteP50Micros:F0} us, p99 {commits.JournalWriteP99Micros:F0} us, " +
                              $"{commits.JournalBytesPerCommit} bytes per commit");

            var merged = MergerDemo.Run(options.Directory, callers: 16, operations: 16_000);
            Console.WriteLine();
            Console.WriteLine($"Transaction merger: {merged.Callers} concurrent callers, {merged.Operations} WriteAsync puts (each done when durable): " +
                              $"{merged.OperationsPerSecond:F0} puts/s, {merged.OperationsPerSecond / commits.CommitsPerSecond:F1}x the single-writer commits above; " +
                              $"{merged.OperationsPerTransaction:F1} operations per transaction; latency p50 {merged.LatencyP50Micros:F0} us, p99 {merged.LatencyP99Micros:F0} us; every key read back");
            Console.WriteLine("  " + merged.Statistics.Replace(System.Environment.NewLine, System.Environment.NewLine + "  "));

            var sharedJournals = SharedJournalDemo.Run(options.Directory, commitsPerEnvironment: 1_000);
            Console.WriteLine();
            Console.WriteLine($"Shared journals: a root and 8 branches, one thread each committing one 100-byte put per commit ({sharedJournals.Shared.Commits} commits per case):");
            foreach (var c in new[] { sharedJournals.Shared, sharedJournals.Separate })
                Console.WriteLine($"  {c.Setup,-8} {c.CommitsPerSecond,7:F0} commits/s, {c.JournalWrites} journal writes ({c.CommitsPerJournalWrite:F2} commits per write), " +
                                  $"commit latency p50 {c.LatencyP50Micros:F0} us, p99 {c.LatencyP99Micros:F0} us");
            Console.WriteLine($"  shared/separate: {sharedJournals.Shared.CommitsPerSecond / sharedJournals.Separate.CommitsPerSecond:F2}x the commits, " +
                              $"{(double)sharedJournals.Shared.JournalWrites / sharedJournals.Separate.JournalWrites:F2}x the journal writes; " +
                              $"{sharedJournals.BranchLinks} links to root journal files in the branch folders; every branch reopened alone with all its keys");
            Console.WriteLine($"  the root's I/O statistics, each shared write with the environments it carried: {sharedJournals.IoStatsPage}");

            Console.WriteLine();
            Console.WriteLine("Crash and recovery: a child process commits and acknowledges transactions until it is killed with SIGKILL; then this process reopens the environment:");
            using var loggerFactory = LoggerFactory.Create(logging => logging
                .AddSimpleConsole(console => { console.SingleLine = true; console.TimestampFormat = "HH:mm:ss.fff "; })
                .SetMinimumLevel(LogLevel.Information));
            var crash = CrashRecoveryDemo.Run(options.Directory, loggerFactory, options.CrashWriterRunTime);
            loggerFactory.Dispose();
            Console.WriteLine($"  the child acknowledged {crash.Acknowledged} transactions (up to {crash.HighestAcknowledged}) and was killed after {crash.KilledAfterMilliseconds:F0} ms;");
            Console.WriteLine($"  reopened in {crash.OpenMilliseconds:F1} ms, replaying {crash.TransactionsReplayed} transactions from the journals: the environment holds transactions up to {crash.RecoveredUpTo}, " +
                              $"acknowledged transactions lost: {crash.Lost}; verified {crash.Verification.PagesInUse} pages in use");
            if (crash.Lost != 0 || crash.RecoveredUpTo < crash.HighestAcknowledged)
                throw new InvalidOperationException($"{crash.Lost} acknowledged transactions were lost");

            Console.WriteLine();
            Console.WriteLine("I/O statistics of the durable commits (journal writes, flushes and syncs of that environment):");
            Console.WriteLine(commitStats.FormatSummary());
            var ioStatsPath = Path.Combine(options.Directory, "io-stats.json");
            using (var json = File.Create(ioStatsPath))
                commitStats.WriteJson(json);
            Console.WriteLine($"I/O statistics as JSON: {ioStatsPath}");
            var ioStatsPagePath = Path.Combine(options.Directory, "io-stats.html");
            using (var page = File.Create(ioStatsPagePath))
                commitStats.WriteHtml(page, "the durable commits of the main job");
            Console.WriteLine($"I/O statistics as a picture (open in a browser): {ioStatsPagePath}");

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
                durableCommits = commits,
                merger = merged,
                sharedJournals,
                crashRecovery = crash,
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

    /// <summary>
    /// Only the shared-journal part, again and again (a campaign: the linux-arm64 run under qemu-aarch64 of
    /// docs/package.md); any failure ends it with its exception.
    /// </summary>
    private static int RunSharedJournalRounds(DemoOptions options)
    {
        for (int round = 1; round <= options.SharedJournalRounds; round++)
        {
            var result = SharedJournalDemo.Run(options.Directory, commitsPerEnvironment: options.Commits);
            Console.WriteLine($"Shared journals, round {round} of {options.SharedJournalRounds}: {result.Shared.Commits} shared and " +
                              $"{result.Separate.Commits} separate commits, every branch reopened alone with all its keys");
        }
        return 0;
    }

    private static void DeleteScratchFiles(string directory)
    {
        foreach (var file in Directory.EnumerateFiles(directory, "*.probe"))
            File.Delete(file);
        foreach (var environment in new[] { "commits", "merger", "crash", "shared", "separate" })
        {
            string path = Path.Combine(directory, environment);
            if (Directory.Exists(path))
                Directory.Delete(path, recursive: true);
        }
    }
}
