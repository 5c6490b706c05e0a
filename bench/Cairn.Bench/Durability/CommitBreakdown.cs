using System.Diagnostics;
using System.Globalization;
using Cairn.Diagnostics;

namespace Cairn.Bench.Durability;

/// <summary>
/// <c>--commit-breakdown [--commits N]</c>: where a single durable commit's time goes. One thread commits one
/// 100-byte put per <c>BeginWrite</c>/<c>Put</c>/<c>Commit</c>; each commit's latency is set against the
/// journal write it contains (<see cref="StorageEnvironment.IoStats"/>, from submission until durable), and the
/// rest is everything else the commit does on the CPU (begin, copy-on-write, diff, hash, publish).
/// </summary>
public static class CommitBreakdown
{
    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        int commits = 4_000;
        for (int i = 0; i + 1 < args.Count; i += 2)
        {
            commits = args[i] == "--commits"
                ? int.Parse(args[i + 1], CultureInfo.InvariantCulture)
                : throw new ArgumentException($"unknown option {args[i]}; known: --commits N");
        }
        if (commits < 2 || commits > IoStats.DefaultCapacity * 2)
            throw new ArgumentException($"--commits is between 2 and {IoStats.DefaultCapacity * 2}");
        string directory = BenchScratch.Directory("commit-breakdown");
        try
        {
            using var env = StorageEnvironment.Open(new StorageOptions(directory) { IoStatsCapacity = 4 * IoStats.DefaultCapacity });
            using (var tx = env.BeginWrite())
            {
                tx.CreateTree("t");
                tx.Commit();
            }
            var tree = env.GetTreeHandle("t");
            var latencies = new double[commits];
            Span<byte> key = stackalloc byte[DurableKeys.KeySize];
            Span<byte> value = stackalloc byte[100];
            for (int round = 0; round < 2; round++) // the first round warms up the JIT and the journal files
            {
                for (int i = 0; i < commits; i++)
                {
                    DurableKeys.Write((ulong)(round * commits + i), key);
                    long start = Stopwatch.GetTimestamp();
                    using (var tx = env.BeginWrite())
                    {
                        tx.OpenTree(tree).Put(key, value);
                        tx.Commit();
                    }
                    latencies[i] = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
                }
            }
            var writes = env.IoStats.Snapshot().Where(o => o.Kind == IoOperationKind.JournalWrite).TakeLast(commits)
                .Select(o => o.Duration.TotalMicroseconds).ToArray();
            Array.Sort(latencies);
            Array.Sort(writes);
            double commitMean = latencies.Average(), writeMean = writes.Average();
            double commitMedian = latencies[commits / 2], writeMedian = writes[writes.Length / 2];
            output.WriteLine($"commit-breakdown: {commits:N0} single-put durable commits (after as many unmeasured); load {File.ReadAllText("/proc/loadavg").Trim()}");
            output.WriteLine("| | mean µs | median µs |");
            output.WriteLine("|---|---|---|");
            output.WriteLine($"| commit (BeginWrite to Commit returned) | {commitMean:F1} | {commitMedian:F1} |");
            output.WriteLine($"| its journal write (submitted to durable) | {writeMean:F1} | {writeMedian:F1} |");
            output.WriteLine($"| the rest (CPU) | {commitMean - writeMean:F1} ({(commitMean - writeMean) / commitMean:P1}) | {commitMedian - writeMedian:F1} |");
            return 0;
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
