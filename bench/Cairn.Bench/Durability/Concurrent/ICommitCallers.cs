namespace Cairn.Bench.Durability.Concurrent;

/// <summary>The callers of one concurrent-commit case: blocked threads, or asynchronous tasks.</summary>
public interface ICommitCallers : IDisposable
{
    /// <summary>Rounds whose latencies were recorded.</summary>
    int RecordedRounds { get; }

    /// <summary>Recorded puts in all.</summary>
    long RecordedPuts { get; }

    /// <summary>One round: every caller makes its share of the commits; with <paramref name="record"/> each put's latency is kept.</summary>
    void RunRound(bool record);

    /// <summary>Latency percentiles (0–100, nearest rank) over every recorded put, in microseconds.</summary>
    double[] LatencyPercentiles(ReadOnlySpan<double> percentiles);
}
