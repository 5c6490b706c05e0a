using System.Diagnostics;

namespace Cairn.Bench.Durability;

/// <summary>
/// Unmeasured rounds before a durable-commit case is measured. A fresh process runs .NET code at
/// tier 0 (no inlining, no PGO) for its first second or more, while the JIT recompiles hot methods
/// in the background; a few BenchmarkDotNet warm-up rounds of a few hundred milliseconds end inside
/// that phase, so Cairn (managed) would be measured half-compiled against peers in native code.
/// The durability harness and a host application run for minutes to months: steady state is what
/// the comparison is about.
/// </summary>
public static class ProcessWarmUp
{
    /// <summary>How long each case warms up before BenchmarkDotNet's own warm-up rounds.</summary>
    public static readonly TimeSpan Duration = TimeSpan.FromSeconds(3);

    /// <summary>Runs <paramref name="round"/> until <paramref name="duration"/> has passed, at least once; returns the rounds run.</summary>
    public static int Run(Action round, TimeSpan duration)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)(duration.TotalSeconds * Stopwatch.Frequency);
        int rounds = 0;
        do
        {
            round();
            rounds++;
        }
        while (Stopwatch.GetTimestamp() < deadline);
        return rounds;
    }
}
