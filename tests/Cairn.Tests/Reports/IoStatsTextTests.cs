using Cairn.Diagnostics;
using Cairn.Reports;
using Cairn.Tests.Diagnostics;

namespace Cairn.Tests.Reports;

/// <summary>The text summary for people: a line per kind with its numbers, then the slowest operations.</summary>
public class IoStatsTextTests
{
    [Fact]
    public void Has_a_line_per_kind_with_its_count_and_failures()
    {
        var stats = Sample();

        var lines = Lines(stats.FormatSummary());

        Assert.StartsWith("I/O statistics: the last 9 of 9 operations recorded (capacity 16, 0 dropped)", lines[0]);
        var header = Cells(lines[1]);
        Assert.Equal(["kind", "count", "failed", "bytes", "total", "ms", "mean", "us", "p50", "us", "p99", "us", "max", "us", "rate"], header);
        // journalWrite: 4 ops (1 failed), 4 × 1 KiB, 10+20+30+40 = 100 µs.
        Assert.Equal(["journalWrite", "4", "1", "4.0", "KiB", "0.100", "25.0", "20.0", "40.0", "40.0", "39.1", "MiB/s"], Cells(Line(lines, "journalWrite")));
        // dataFlush: 3 ops, 3 × 1 MiB, 1000+2000+3000 µs.
        Assert.Equal(["dataFlush", "3", "0", "3.0", "MiB", "6.000", "2000.0", "2000.0", "3000.0", "3000.0", "500.0", "MiB/s"], Cells(Line(lines, "dataFlush")));
        // dataSync: 2 ops, 5000 + 7000.6 µs.
        Assert.Equal(["dataSync", "2", "0", "0", "B", "12.001", "6000.3", "5000.0", "7000.6", "7000.6", "0", "B/s"], Cells(Line(lines, "dataSync")));
    }

    [Fact]
    public void The_columns_line_up()
    {
        var lines = Lines(Sample().FormatSummary());

        // Numbers are right-aligned: each kind's line ends where the header does.
        int width = lines[1].Length;
        foreach (var kind in new[] { "journalWrite", "dataFlush", "dataSync" })
            Assert.Equal(width, Line(lines, kind).Length);
    }

    [Fact]
    public void Lists_the_slowest_operations_longest_first()
    {
        var lines = Lines(Sample().FormatSummary(3));

        int heading = Array.IndexOf(lines, "slowest 3:");
        Assert.True(heading > 0, "no 'slowest 3:' heading");
        Assert.Equal("seq", Cells(lines[heading + 1])[0]);
        var rows = lines[(heading + 2)..].Select(Cells).ToArray();
        Assert.Equal(3, rows.Length);
        // The syncs (7000.6 and 5000 µs), then the 3000 µs flush.
        Assert.Equal(["8", "dataSync", "7000.6", "0", "B", "13"], rows[0][..6]);
        Assert.Equal(["7", "dataSync", "5000.0"], rows[1][..3]);
        Assert.Equal(["6", "dataFlush", "3000.0", "1.0", "MiB", "10..12", "(3", "tx)", "no"], rows[2][..9]);
        Assert.Equal("/env/data", rows[2][^1]);
    }

    [Fact]
    public void Marks_failed_operations_among_the_slowest()
    {
        var stats = new IoStats(16);
        stats.Record(IoOperationKind.JournalWrite, IoTime.Origin, IoTime.Origin + IoTime.Microseconds(9), 1, "/env/journal", 1, 1, 1, failed: true);

        var row = Cells(Lines(stats.FormatSummary())[^1]);

        Assert.Equal(["0", "journalWrite", "9.0", "1", "B", "1", "yes"], row[..7]);
    }

    [Fact]
    public void Lists_no_slowest_operations_when_asked_for_none_or_empty()
    {
        Assert.DoesNotContain("slowest", Sample().FormatSummary(0));
        var empty = Lines(new IoStats(16).FormatSummary());
        Assert.DoesNotContain(empty, l => l.StartsWith("slowest", StringComparison.Ordinal));
        Assert.Equal(["journalWrite", "0", "0", "0", "B", "0.000", "0.0", "0.0", "0.0", "0.0", "0", "B/s"], Cells(Line(empty, "journalWrite")));
    }

    [Fact]
    public void Rejects_a_negative_slowest_count()
        => Assert.Throws<ArgumentOutOfRangeException>(() => new IoStats(16).FormatSummary(-1));

    private static IoStats Sample()
    {
        var stats = new IoStats(16);
        long t = IoTime.Origin;
        for (int k = 0; k < 4; k++)
            stats.Record(IoOperationKind.JournalWrite, t, t + IoTime.Microseconds(10 * (k + 1)), 1024, "/env/journal", k + 1, k + 1, 1, failed: k == 2);
        for (int k = 0; k < 3; k++)
            stats.Record(IoOperationKind.DataFlush, t, t + IoTime.Microseconds(1000 * (k + 1)), 1 << 20, "/env/data", 10, 10 + k, k + 1);
        stats.Record(IoOperationKind.DataSync, t, t + IoTime.Microseconds(5000), 0, "/env/data", 12, 12, 0);
        stats.Record(IoOperationKind.DataSync, t, t + IoTime.Microseconds(7000) + IoTime.Microseconds(6) / 10, 0, "/env/data", 13, 13, 0);
        return stats;
    }

    private static string[] Lines(string text) => text.Split('\n', StringSplitOptions.RemoveEmptyEntries);

    private static string Line(string[] lines, string kind) => Assert.Single(lines, l => l.StartsWith(kind + " ", StringComparison.Ordinal));

    private static string[] Cells(string line) => line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
}
