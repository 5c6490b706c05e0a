using System.Diagnostics;

namespace Cairn.Cluster.Bench;

/// <summary>
/// One measured run: <c>callers</c> async callers, each doing its writes one after another (16 B random key, 100 B
/// random value, made before the clock starts), all at once. Rate is writes over the run's wall time.
/// </summary>
internal sealed record CallerRun(int Writes, double Seconds, double[] LatenciesMs)
{
    public double Rate => Writes / Seconds;

    public static async Task<CallerRun> RunAsync(int callers, int writesPerCaller, Random random, Func<int, byte[], byte[], Task> write)
    {
        var inputs = Enumerable.Range(0, callers).Select(_ => Enumerable.Range(0, writesPerCaller)
            .Select(_ => (Key: Bytes(random, 16), Value: Bytes(random, 100))).ToArray()).ToArray();
        var latencies = new double[callers * writesPerCaller];
        var clock = Stopwatch.StartNew();
        await Task.WhenAll(Enumerable.Range(0, callers).Select(caller => Task.Run(async () =>
        {
            for (var i = 0; i < writesPerCaller; i++)
            {
                var started = Stopwatch.GetTimestamp();
                await write(caller, inputs[caller][i].Key, inputs[caller][i].Value);
                latencies[caller * writesPerCaller + i] = Measure.Milliseconds(Stopwatch.GetTimestamp() - started);
            }
        })));
        return new CallerRun(latencies.Length, clock.Elapsed.TotalSeconds, latencies);
    }

    private static byte[] Bytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }
}
