using System.Diagnostics;
using Cairn.Diagnostics;
using Cairn.Reports;

namespace Cairn.Demo;

internal sealed record SharedJournalCase(string Setup, int Environments, int Commits, double CommitsPerSecond, long JournalWrites,
    double CommitsPerJournalWrite, double LatencyP50Micros, double LatencyP99Micros);

internal sealed record SharedJournalDemoResult(SharedJournalCase Shared, SharedJournalCase Separate, int BranchLinks, bool ReopenedAlone,
    string IoStatsPage);

/// <summary>
/// A root and 8 branches committing at once (one thread each, one 100-byte put per commit), their journals
/// shared (<see cref="StorageEnvironment.OpenBranch"/>) and then separate; afterwards each shared branch is
/// opened alone and every key read back.
/// </summary>
internal static class SharedJournalDemo
{
    private const int Branches = 8;

    public static SharedJournalDemoResult Run(string directory, int commitsPerEnvironment)
    {
        string root = Path.Combine(directory, "shared");
        foreach (var path in new[] { root, Path.Combine(directory, "separate") })
            if (Directory.Exists(path))
                Directory.Delete(path, recursive: true);
        var shared = Measure(root, shareJournals: true, commitsPerEnvironment, out int links);
        var separate = Measure(Path.Combine(directory, "separate"), shareJournals: false, commitsPerEnvironment, out _);
        for (int b = 0; b <= Branches; b++)
        {
            using var alone = StorageEnvironment.Open(new StorageOptions(EnvironmentPath(root, b)));
            using var tx = alone.BeginRead();
            var tree = tx.OpenTree("kv");
            if (tree.Count != commitsPerEnvironment)
                throw new InvalidOperationException($"{alone.DirectoryPath} reopened alone with {tree.Count} keys, not {commitsPerEnvironment}");
            alone.Verify();
        }
        return new SharedJournalDemoResult(shared, separate, links, ReopenedAlone: true, IoStatsPagePath(directory));
    }

    /// <summary>The root's I/O statistics page of the shared case: each shared write with the environments it carried.</summary>
    private static string IoStatsPagePath(string directory) => Path.Combine(directory, "shared-io-stats.html");

    private static string EnvironmentPath(string root, int index) => index == 0 ? root : Path.Combine(root, "branches", $"branch{index}");

    private static SharedJournalCase Measure(string root, bool shareJournals, int commits, out int links)
    {
        var environments = new StorageEnvironment[Branches + 1];
        environments[0] = StorageEnvironment.Open(new StorageOptions(root));
        for (int b = 1; b <= Branches; b++)
        {
            var options = new StorageOptions(EnvironmentPath(root, b));
            environments[b] = shareJournals ? environments[0].OpenBranch(options) : StorageEnvironment.Open(options);
        }
        try
        {
            var latencies = new double[environments.Length * commits];
            var clock = Stopwatch.StartNew();
            var threads = environments.Select((env, e) => new Thread(() =>
            {
                var value = new byte[100];
                Random.Shared.NextBytes(value);
                for (int i = 0; i < commits; i++)
                {
                    long started = Stopwatch.GetTimestamp();
                    using (var tx = env.BeginWrite())
                    {
                        tx.CreateTree("kv").Put(BitConverter.GetBytes((long)i), value);
                        tx.Commit();
                    }
                    latencies[e * commits + i] = Stopwatch.GetElapsedTime(started).TotalMicroseconds;
                }
            })).ToArray();
            foreach (var thread in threads)
                thread.Start();
            foreach (var thread in threads)
                thread.Join();
            double seconds = clock.Elapsed.TotalSeconds;
            // A shared write is recorded once, by the root; separate environments each record their own.
            long writes = (shareJournals ? environments[..1] : environments)
                .Sum(env => env.IoStats.Snapshot().Count(op => op.Kind == IoOperationKind.JournalWrite && !op.Failed));
            links = shareJournals
                ? environments[1..].Sum(env => Directory.GetFiles(Path.Combine(env.DirectoryPath, "Journals"), "*.journal")
                    .Count(file => Pal.PalFileSystem.LinkCount(file) > 1))
                : 0;
            if (shareJournals)
            {
                using var page = File.Create(IoStatsPagePath(Path.GetDirectoryName(root)!));
                environments[0].IoStats.WriteHtml(page, "a root's shared journal writes (8 branches)");
            }
            Array.Sort(latencies);
            int total = latencies.Length;
            return new SharedJournalCase(shareJournals ? "shared" : "separate", environments.Length, total, total / seconds, writes,
                total / (double)Math.Max(1, writes), latencies[total / 2], latencies[(int)(total * 0.99)]);
        }
        finally
        {
            for (int e = environments.Length - 1; e >= 0; e--)
                environments[e].Dispose(); // branches before their root
        }
    }
}
