using System.Diagnostics;

namespace Cairn.Cluster.Bench;

/// <summary>Percentiles, the load average, and waits on a condition with a ceiling only a hang reaches.</summary>
internal static class Measure
{
    /// <summary>The value at quantile <paramref name="q"/> (0..1) of <paramref name="values"/>, nearest rank.</summary>
    public static double Percentile(IReadOnlyCollection<double> values, double q)
    {
        if (values.Count == 0)
            return double.NaN;
        var sorted = values.Order().ToArray();
        var rank = (int)Math.Ceiling(q * sorted.Length) - 1;
        return sorted[Math.Clamp(rank, 0, sorted.Length - 1)];
    }

    /// <summary>The one-minute load average, printed beside every figure (the machine is shared).</summary>
    public static string Load() => File.Exists("/proc/loadavg") ? File.ReadAllText("/proc/loadavg").Split(' ')[0] : "n/a";

    public static double Milliseconds(long ticks) => ticks * 1000.0 / Stopwatch.Frequency;

    /// <summary>Polls <paramref name="condition"/> until it holds; throws <see cref="TimeoutException"/> after a minute.</summary>
    public static async Task UntilAsync(Func<bool> condition, Func<string> describe)
    {
        var ceiling = Stopwatch.StartNew();
        while (!condition())
        {
            if (ceiling.Elapsed > TimeSpan.FromMinutes(1))
                throw new TimeoutException($"Still not holding after a minute: {describe()}");
            await Task.Delay(2);
        }
    }
}
