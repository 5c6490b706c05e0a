using Cairn.Diagnostics;

namespace Cairn.Tests.Diagnostics;

/// <summary>The per-kind summary against values worked out by hand.</summary>
public class IoStatsSummaryTests
{
    [Fact]
    public void Summarizes_each_kind_over_the_snapshot()
    {
        var stats = new IoStats(256);
        // Flushes of 1..100 µs, 4 KiB each, recorded in a scrambled order (37 is coprime to 100).
        for (int k = 0; k < 100; k++)
            Record(stats, IoOperationKind.DataFlush, microseconds: 1 + k * 37 % 100, bytes: 4096);
        // Journal writes of 40, 10, 1000, 30, 20 µs; the 1000 µs one failed.
        long[] journal = [40, 10, 1000, 30, 20];
        for (int k = 0; k < journal.Length; k++)
            Record(stats, IoOperationKind.JournalWrite, journal[k], bytes: 100 * (k + 1), failed: journal[k] == 1000);
        Record(stats, IoOperationKind.DataSync, microseconds: 7, bytes: 0);

        var summary = stats.Summarize();

        Assert.Equal(106, summary.OperationCount);
        // Total 5050 µs; mean 50.5; p50 = 50th of 100 (rank ⌈50⌉); p99 = 99th (rank ⌈99⌉).
        Assert.Equal(Summary(IoOperationKind.DataFlush, 100, 0, 409_600, Us(5_050), Us(50.5), Us(50), Us(99), Us(100), 0),
                     WithoutRate(summary.DataFlush));
        AssertRate(409_600 / 0.005_05, summary.DataFlush);
        // Sorted 10, 20, 30, 40, 1000: total 1100, mean 220; p50 = 3rd (rank ⌈2.5⌉); p99 = 5th (rank ⌈4.95⌉).
        Assert.Equal(Summary(IoOperationKind.JournalWrite, 5, 1, 1_500, Us(1_100), Us(220), Us(30), Us(1_000), Us(1_000), 0),
                     WithoutRate(summary.JournalWrite));
        AssertRate(1_500 / 0.0011, summary.JournalWrite);
        Assert.Equal(Summary(IoOperationKind.DataSync, 1, 0, 0, Us(7), Us(7), Us(7), Us(7), Us(7), 0), summary.DataSync);

        Assert.Equal([IoOperationKind.JournalWrite, IoOperationKind.DataFlush, IoOperationKind.DataSync], summary.Kinds.Select(k => k.Kind));
        Assert.Equal(summary.DataFlush, summary[IoOperationKind.DataFlush]);
    }

    [Theory]
    [InlineData(new long[] { 5 }, 5, 5)]
    [InlineData(new long[] { 4, 1, 3, 2 }, 2, 4)]                  // p50: rank 2 of 4
    [InlineData(new long[] { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, 5, 10)] // p99: rank ⌈9.9⌉ = 10
    [InlineData(new long[] { 3, 3, 3, 9 }, 3, 9)]
    public void Percentiles_are_nearest_rank(long[] microseconds, long p50, long p99)
    {
        var operations = microseconds.Select((us, k) => Operation(k, IoOperationKind.DataSync, us)).ToArray();

        var sync = IoStatsSummary.From(operations).DataSync;

        Assert.Equal(Us(p50), sync.P50Duration);
        Assert.Equal(Us(p99), sync.P99Duration);
        Assert.Equal(Us(microseconds.Max()), sync.MaxDuration);
    }

    [Fact]
    public void The_99th_percentile_of_1000_operations_is_the_990th()
    {
        var operations = Enumerable.Range(1, 1000).Reverse().Select(us => Operation(us, IoOperationKind.JournalWrite, us)).ToArray();

        var journal = IoStatsSummary.From(operations).JournalWrite;

        Assert.Equal(Us(500), journal.P50Duration);
        Assert.Equal(Us(990), journal.P99Duration);
        Assert.Equal(Us(500.5), journal.MeanDuration);
    }

    [Fact]
    public void The_mean_is_truncated_to_100_nanoseconds()
    {
        // 1 + 1 + 2 = 4 µs over 3 = 1.333… µs: 13 ticks of 100 ns.
        IoOperation[] operations = [Operation(0, IoOperationKind.DataFlush, 1), Operation(1, IoOperationKind.DataFlush, 1), Operation(2, IoOperationKind.DataFlush, 2)];

        Assert.Equal(TimeSpan.FromTicks(13), IoStatsSummary.From(operations).DataFlush.MeanDuration);
    }

    [Fact]
    public void Kinds_without_operations_are_all_zero()
    {
        var summary = new IoStats(16).Summarize();

        Assert.Equal(0, summary.OperationCount);
        foreach (var kind in new[] { IoOperationKind.JournalWrite, IoOperationKind.DataFlush, IoOperationKind.DataSync })
            Assert.Equal(Summary(kind, 0, 0, 0, TimeSpan.Zero, TimeSpan.Zero, TimeSpan.Zero, TimeSpan.Zero, TimeSpan.Zero, 0), summary[kind]);
    }

    [Fact]
    public void Zero_length_operations_have_no_rate()
    {
        IoOperation[] operations = [Operation(0, IoOperationKind.JournalWrite, 0) with { Bytes = 4096 }];

        var journal = IoStatsSummary.From(operations).JournalWrite;

        Assert.Equal(4096, journal.Bytes);
        Assert.Equal(0, journal.BytesPerSecond);
    }

    [Fact]
    public void Summarizes_only_what_the_ring_still_holds()
    {
        var stats = new IoStats(16);
        for (int k = 0; k < 20; k++)
            Record(stats, IoOperationKind.DataFlush, microseconds: k, bytes: 1);

        var flush = stats.Summarize().DataFlush;

        Assert.Equal(16, flush.Count);
        Assert.Equal(16, flush.Bytes);
        Assert.Equal(Us(11), flush.P50Duration); // the ring holds 4..19 µs: the 8th shortest
        Assert.Equal(Us(4 + 19) * 8, flush.TotalDuration);
        Assert.Equal(Us(19), flush.MaxDuration);
    }

    [Fact]
    public void Rejects_an_undefined_kind()
    {
        var summary = new IoStats(16).Summarize();
        Assert.Throws<ArgumentOutOfRangeException>(() => summary[(IoOperationKind)0]);
        Assert.Throws<ArgumentOutOfRangeException>(() => summary[(IoOperationKind)4]);
    }

    private static void Record(IoStats stats, IoOperationKind kind, long microseconds, long bytes, bool failed = false)
    {
        long start = IoTime.Origin + IoTime.Microseconds(stats.TotalRecorded * 10_000);
        stats.Record(kind, start, start + IoTime.Microseconds(microseconds), bytes, "/env/file", 1, 1, 1, failed);
    }

    private static IoOperation Operation(long sequence, IoOperationKind kind, long microseconds)
        => new()
        {
            Sequence = sequence, Kind = kind, StartUtc = DateTime.UnixEpoch, Duration = Us(microseconds), Bytes = 0, FilePath = "/env/file",
            FirstTransactionId = 1, LastTransactionId = 1, TransactionCount = 1, Failed = false, EnvironmentCount = 1,
        };

    private static TimeSpan Us(double microseconds) => TimeSpan.FromTicks((long)(microseconds * 10));

    private static IoKindSummary WithoutRate(IoKindSummary summary) => summary with { BytesPerSecond = 0 };

    // The rate is a floating-point division: equal to the hand-computed one up to rounding.
    private static void AssertRate(double expected, IoKindSummary summary)
        => Assert.Equal(expected, summary.BytesPerSecond, tolerance: expected * 1e-12);

    private static IoKindSummary Summary(IoOperationKind kind, int count, int failed, long bytes, TimeSpan total, TimeSpan mean,
        TimeSpan p50, TimeSpan p99, TimeSpan max, double bytesPerSecond) => new()
    {
        Kind = kind, Count = count, Failed = failed, Bytes = bytes, TotalDuration = total, MeanDuration = mean,
        P50Duration = p50, P99Duration = p99, MaxDuration = max, BytesPerSecond = bytesPerSecond,
    };
}
