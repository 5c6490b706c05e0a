using System.Globalization;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Cairn.Bench.Durability.Concurrent;

/// <summary>
/// What the benchmark process measured beyond BenchmarkDotNet's mean, over the measured iterations
/// only: per-put latency percentiles and, for stores that report them, durable log writes. The
/// benchmark process prints it as one line at global cleanup; the columns, in the host process,
/// find that line in the report's captured standard output (<see cref="Find"/>).
/// </summary>
/// <param name="Rounds">Measured rounds recorded.</param>
/// <param name="Puts">Puts recorded in them (all callers).</param>
/// <param name="P50Microseconds">Median latency of one put, µs.</param>
/// <param name="P99Microseconds">99th-percentile latency of one put, µs.</param>
/// <param name="LogWrites">Durable log writes during the measured rounds, or -1 when the store does not count them.</param>
/// <param name="LogWriteName">What one log write is ("WAL sync", "journal write"), or "-".</param>
public sealed record ConcurrentCommitResult(int Rounds, long Puts, double P50Microseconds, double P99Microseconds, long LogWrites, string LogWriteName)
{
    public const string Prefix = "// concurrent-commit-result ";

    /// <summary>Puts per durable log write, or NaN when the store does not count its log writes.</summary>
    public double PutsPerLogWrite => LogWrites > 0 ? (double)Puts / LogWrites : double.NaN;

    public string Format() => string.Create(CultureInfo.InvariantCulture,
        $"{Prefix}rounds={Rounds} puts={Puts} p50us={P50Microseconds:0.###} p99us={P99Microseconds:0.###} logwrites={LogWrites} logwrite={LogWriteName.Replace(' ', '_')}");

    public static ConcurrentCommitResult? Parse(string line)
    {
        if (!line.StartsWith(Prefix, StringComparison.Ordinal))
            return null;
        var fields = line[Prefix.Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries)
            .Select(field => field.Split('=', 2))
            .Where(pair => pair.Length == 2)
            .ToDictionary(pair => pair[0], pair => pair[1], StringComparer.Ordinal);
        var inv = CultureInfo.InvariantCulture;
        return new ConcurrentCommitResult(
            int.Parse(fields["rounds"], inv),
            long.Parse(fields["puts"], inv),
            double.Parse(fields["p50us"], inv),
            double.Parse(fields["p99us"], inv),
            long.Parse(fields["logwrites"], inv),
            fields["logwrite"].Replace('_', ' '));
    }

    /// <summary>The result line the benchmark process of <paramref name="benchmarkCase"/> printed, or null.</summary>
    public static ConcurrentCommitResult? Find(Summary summary, BenchmarkCase benchmarkCase)
    {
        var report = summary[benchmarkCase];
        if (report is null)
            return null;
        foreach (var execution in report.ExecuteResults)
        {
            foreach (var line in execution.StandardOutput)
            {
                if (Parse(line) is { } result)
                    return result;
            }
        }
        return null;
    }
}
