using System.Diagnostics;
using Cairn.Reports;

namespace Cairn.Demo;

internal sealed record MergerDemoResult(int Callers, int Operations, double OperationsPerSecond, double OperationsPerTransaction,
    double LatencyP50Micros, double LatencyP99Micros, string Statistics);

/// <summary>
/// The transaction merger: concurrent callers each put keys one <c>WriteAsync</c> at a time (each call
/// completes when its transaction is durable); every key is read back afterwards.
/// </summary>
internal static class MergerDemo
{
    public static MergerDemoResult Run(string directory, int callers, int operations)
    {
        string path = Path.Combine(directory, "merger");
        if (Directory.Exists(path))
            Directory.Delete(path, recursive: true);
        int perCaller = operations / callers;
        var latencies = new double[callers * perCaller];
        using var env = StorageEnvironment.Open(new StorageOptions(path));
        var clock = Stopwatch.StartNew();
        var tasks = Enumerable.Range(0, callers).Select(c => Task.Run(async () =>
        {
            var value = new byte[100];
            Random.Shared.NextBytes(value);
            for (int i = 0; i < perCaller; i++)
            {
                long started = Stopwatch.GetTimestamp();
                await env.WriteAsync((Key: Key(c, i), Value: value), static (tx, s) => tx.CreateTree("kv").Put(s.Key, s.Value));
                latencies[c * perCaller + i] = Stopwatch.GetElapsedTime(started).TotalMicroseconds;
            }
        })).ToArray();
        Task.WaitAll(tasks);
        double seconds = clock.Elapsed.TotalSeconds;

        using (var tx = env.BeginRead())
        {
            var tree = tx.OpenTree("kv");
            for (int c = 0; c < callers; c++)
                for (int i = 0; i < perCaller; i++)
                    if (!tree.TryGet(Key(c, i), out _))
                        throw new InvalidOperationException($"merged put {c}/{i} is missing after its task completed");
        }
        Array.Sort(latencies);
        var snapshot = env.MergerStatistics.Snapshot();
        return new MergerDemoResult(callers, latencies.Length, latencies.Length / seconds, snapshot.OperationsPerTransaction,
            latencies[latencies.Length / 2], latencies[(int)(latencies.Length * 0.99)], snapshot.Format(env.IoStats).TrimEnd());
    }

    private static byte[] Key(int caller, int i) => BitConverter.GetBytes((long)caller << 32 | (uint)i);
}
