using System.Text.Json;
using Cairn.Diagnostics;
using Cairn.Reports;
using Cairn.Tests.Diagnostics;

namespace Cairn.Tests.Reports;

/// <summary>The JSON document parsed back and compared field by field with the snapshot and summary it came from.</summary>
public class IoStatsJsonTests
{
    private static readonly string[] TopLevelProperties = ["capacity", "totalRecorded", "dropped", "summary", "operations"];
    private static readonly string[] KindNames = ["journalWrite", "dataFlush", "dataSync"];
    private static readonly string[] KindProperties = ["count", "failed", "bytes", "totalMs", "meanUs", "p50Us", "p99Us", "maxUs", "bytesPerSecond"];
    private static readonly string[] OperationProperties = ["seq", "kind", "startUtc", "durationUs", "bytes", "file", "firstTx", "lastTx", "txCount", "failed", "environments"];

    [Fact]
    public void Round_trips_every_field()
    {
        var stats = new IoStats(32);
        const string awkwardPath = "/env/\"quoted\" \\back\\slash\\ ünïcödé\tdata";
        // 40 records in a ring of 32: the document holds sequences 8..39. Durations include 0 and
        // whole microseconds (which must still be written with one decimal).
        for (int n = 0; n < 40; n++)
        {
            long start = IoTime.Origin + IoTime.Microseconds(n * 1_000);
            long end = start + IoTime.Microseconds(n * 13 % 50) + IoTime.Microseconds(1) * (n % 10) / 10;
            var kind = (IoOperationKind)(1 + n % 3);
            stats.Record(kind, start, end, kind == IoOperationKind.DataSync ? 0 : 512L * n, n % 4 == 0 ? awkwardPath : "/env/journal",
                         1_000 + n, 1_000 + n + n % 5, 1 + n % 5, failed: n % 6 == 1);
        }
        var operations = stats.Snapshot();
        var summary = stats.Summarize();

        using var json = Parse(stats);
        var root = json.RootElement;

        Assert.Equal(TopLevelProperties, Names(root));
        Assert.Equal(32, root.GetProperty("capacity").GetInt32());
        Assert.Equal(40, root.GetProperty("totalRecorded").GetInt64());
        Assert.Equal(0, root.GetProperty("dropped").GetInt64());

        var summaryElement = root.GetProperty("summary");
        Assert.Equal(KindNames, Names(summaryElement));
        foreach (var kind in summary.Kinds)
            AssertKind(kind, summaryElement.GetProperty(KindNames[(int)kind.Kind - 1]));

        var operationElements = root.GetProperty("operations").EnumerateArray().ToArray();
        Assert.Equal(operations.Length, operationElements.Length);
        Assert.Equal(32, operationElements.Length);
        for (int k = 0; k < operations.Length; k++)
            AssertOperation(operations[k], operationElements[k]);
        Assert.Contains(operations, o => o.FilePath == awkwardPath);
        Assert.Contains(operations, o => o.Failed);
    }

    [Fact]
    public void Writes_an_empty_ring_with_zero_summaries()
    {
        using var json = Parse(new IoStats(16));
        var root = json.RootElement;

        Assert.Equal(TopLevelProperties, Names(root));
        Assert.Equal(16, root.GetProperty("capacity").GetInt32());
        Assert.Equal(0, root.GetProperty("totalRecorded").GetInt64());
        Assert.Equal(0, root.GetProperty("operations").GetArrayLength());
        foreach (var name in KindNames)
        {
            var kind = root.GetProperty("summary").GetProperty(name);
            Assert.Equal(KindProperties, Names(kind));
            Assert.All(KindProperties, p => Assert.Equal(0m, kind.GetProperty(p).GetDecimal()));
        }
    }

    [Fact]
    public void Reports_dropped_records()
    {
        var stats = new IoStats(16);
        Assert.True(stats.TryClaim(stats.TakeSequence()));
        for (int n = 1; n <= 16; n++)
            stats.Record(IoOperationKind.DataSync, IoTime.Origin, IoTime.Origin, 0, "/env/data", n, n, 0);

        using var json = Parse(stats);

        Assert.Equal(1, json.RootElement.GetProperty("dropped").GetInt64());
        Assert.Equal(17, json.RootElement.GetProperty("totalRecorded").GetInt64());
        Assert.Equal(15, json.RootElement.GetProperty("operations").GetArrayLength());
    }

    [Fact]
    public void Leaves_the_stream_open_and_writes_from_its_position()
    {
        var stats = new IoStats(16);
        using var stream = new MemoryStream();
        stream.Write("prefix"u8);

        stats.WriteJson(stream);

        Assert.True(stream.CanWrite);
        Assert.Equal("prefix{"u8.ToArray(), stream.ToArray()[..7]);
        using var json = JsonDocument.Parse(stream.ToArray().AsMemory(6));
        Assert.Equal(16, json.RootElement.GetProperty("capacity").GetInt32());
    }

    private static void AssertKind(IoKindSummary expected, JsonElement element)
    {
        Assert.Equal(KindProperties, Names(element));
        Assert.Equal(expected.Count, element.GetProperty("count").GetInt32());
        Assert.Equal(expected.Failed, element.GetProperty("failed").GetInt32());
        Assert.Equal(expected.Bytes, element.GetProperty("bytes").GetInt64());
        Assert.Equal(expected.TotalDuration.Ticks / 10_000m, element.GetProperty("totalMs").GetDecimal());
        AssertMicroseconds(expected.MeanDuration, element.GetProperty("meanUs"));
        AssertMicroseconds(expected.P50Duration, element.GetProperty("p50Us"));
        AssertMicroseconds(expected.P99Duration, element.GetProperty("p99Us"));
        AssertMicroseconds(expected.MaxDuration, element.GetProperty("maxUs"));
        Assert.Equal(Math.Round(expected.BytesPerSecond), element.GetProperty("bytesPerSecond").GetDouble());
    }

    private static void AssertOperation(IoOperation expected, JsonElement element)
    {
        Assert.Equal(OperationProperties, Names(element));
        Assert.Equal(expected.Sequence, element.GetProperty("seq").GetInt64());
        Assert.Equal(KindNames[(int)expected.Kind - 1], element.GetProperty("kind").GetString());
        var start = element.GetProperty("startUtc");
        Assert.EndsWith("Z", start.GetString());
        Assert.Equal(expected.StartUtc, start.GetDateTime().ToUniversalTime());
        AssertMicroseconds(expected.Duration, element.GetProperty("durationUs"));
        Assert.Equal(expected.Bytes, element.GetProperty("bytes").GetInt64());
        Assert.Equal(expected.FilePath, element.GetProperty("file").GetString());
        Assert.Equal(expected.FirstTransactionId, element.GetProperty("firstTx").GetInt64());
        Assert.Equal(expected.LastTransactionId, element.GetProperty("lastTx").GetInt64());
        Assert.Equal(expected.TransactionCount, element.GetProperty("txCount").GetInt32());
        Assert.Equal(expected.Failed, element.GetProperty("failed").GetBoolean());
    }

    // Microseconds with exactly one decimal, and exact: a TimeSpan tick is 0.1 µs.
    private static void AssertMicroseconds(TimeSpan expected, JsonElement element)
    {
        string raw = element.GetRawText();
        Assert.Matches(@"^\d+\.\d$", raw);
        Assert.Equal(expected.Ticks / 10m, element.GetDecimal());
    }

    private static string[] Names(JsonElement element) => [.. element.EnumerateObject().Select(p => p.Name)];

    private static JsonDocument Parse(IoStats stats)
    {
        using var stream = new MemoryStream();
        stats.WriteJson(stream);
        return JsonDocument.Parse(stream.ToArray());
    }
}
