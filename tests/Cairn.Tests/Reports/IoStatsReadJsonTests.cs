using System.Text;
using Cairn.Diagnostics;
using Cairn.Reports;
using Cairn.Tests.Diagnostics;

namespace Cairn.Tests.Reports;

/// <summary><see cref="IoStatsJson.ReadJson"/>: a saved dump read back is the ring that wrote it, and anything else is refused saying where.</summary>
public class IoStatsReadJsonTests
{
    [Fact]
    public void A_dump_read_back_writes_the_same_document_and_the_same_text()
    {
        var stats = new IoStats(32);
        const string awkwardPath = "/env/\"quoted\" ünïcödé\tdata";
        for (int n = 0; n < 45; n++)
        {
            long start = IoTime.Origin + IoTime.Microseconds(n * 1_337);
            long end = start + IoTime.Microseconds(n * 17 % 90) + IoTime.Microseconds(1) * (n % 10) / 10;
            var kind = (IoOperationKind)(1 + n % 3);
            stats.Record(kind, start, end, kind == IoOperationKind.DataSync ? 0 : 4096L * n, n % 4 == 0 ? awkwardPath : "/env/journal",
                         n % 7 == 3 ? -1 : 100 + n, 100 + n + n % 3, 1 + n % 4, failed: n % 9 == 2, environmentCount: 1 + n % 5 / 4);
        }
        byte[] original = Json(stats);

        var read = IoStatsJson.ReadJson(new MemoryStream(original));

        Assert.Equal(Encoding.UTF8.GetString(original), Encoding.UTF8.GetString(Json(read)));
        Assert.Equal(stats.Snapshot(), read.Snapshot());
        Assert.Equal(stats.FormatSummary(10), read.FormatSummary(10));
        Assert.Equal((stats.Capacity, stats.TotalRecorded, stats.Dropped), (read.Capacity, read.TotalRecorded, read.Dropped));
    }

    [Fact]
    public void An_empty_ring_reads_back_empty()
    {
        var read = IoStatsJson.ReadJson(new MemoryStream(Json(new IoStats(16))));
        Assert.Empty(read.Snapshot());
        Assert.Equal(16, read.Capacity);
    }

    [Fact]
    public void A_dump_of_an_older_engine_without_environment_counts_reads_as_single_environment_writes()
    {
        const string json = """
            {"capacity":16,"totalRecorded":1,"dropped":0,"summary":{},"operations":[
             {"seq":0,"kind":"journalWrite","startUtc":"2026-11-22T19:12:21.1635496Z","durationUs":57.5,"bytes":16384,
              "file":"/srv/env/journal","firstTx":2905,"lastTx":2905,"txCount":1,"failed":false}]}
            """;
        var operation = Assert.Single(IoStatsJson.ReadJson(new MemoryStream(Encoding.UTF8.GetBytes(json))).Snapshot());
        Assert.Equal(new IoOperation
        {
            Sequence = 0, Kind = IoOperationKind.JournalWrite, StartUtc = new DateTime(2026, 11, 22, 19, 12, 21, DateTimeKind.Utc).AddTicks(1635496),
            Duration = TimeSpan.FromTicks(575), Bytes = 16384, FilePath = "/srv/env/journal", FirstTransactionId = 2905, LastTransactionId = 2905,
            TransactionCount = 1, Failed = false, EnvironmentCount = 1,
        }, operation);
    }

    [Theory]
    [InlineData("[]", "$: the document is not a JSON object")]
    [InlineData("{\"capacity\":16", "not a JSON document")]
    [InlineData("{\"capacity\":24,\"totalRecorded\":0,\"dropped\":0,\"operations\":[]}", "$.capacity: 24 is not a power of two")]
    [InlineData("{\"capacity\":16,\"dropped\":0,\"operations\":[]}", "$.totalRecorded: missing")]
    [InlineData("{\"capacity\":16,\"totalRecorded\":1,\"dropped\":0,\"operations\":[" + Op0Write + "]}", "$.operations[0].kind: 'write' is not")]
    [InlineData("{\"capacity\":16,\"totalRecorded\":1,\"dropped\":0,\"operations\":[" + Op0 + "," + Op0 + "]}", "$.operations[1].seq: sequence 0 is out of order")]
    [InlineData("{\"capacity\":16,\"totalRecorded\":40,\"dropped\":0,\"operations\":[" + Op0 + "]}", "outside the last 16 of 40 recorded")]
    public void Anything_else_is_refused_saying_where(string json, string expected)
    {
        var error = Assert.Throws<InvalidDataException>(() => IoStatsJson.ReadJson(new MemoryStream(Encoding.UTF8.GetBytes(json))));
        Assert.Contains(expected, error.Message);
    }

    private const string Op0 = "{\"seq\":0,\"kind\":\"journalWrite\",\"startUtc\":\"2026-11-22T19:12:21Z\",\"durationUs\":5.0,\"bytes\":1,\"file\":\"f\",\"firstTx\":1,\"lastTx\":1,\"txCount\":1,\"failed\":false}";

    private const string Op0Write = "{\"seq\":0,\"kind\":\"write\",\"startUtc\":\"2026-11-22T19:12:21Z\",\"durationUs\":5.0,\"bytes\":1,\"file\":\"f\",\"firstTx\":1,\"lastTx\":1,\"txCount\":1,\"failed\":false}";

    private static byte[] Json(IoStats stats)
    {
        var stream = new MemoryStream();
        stats.WriteJson(stream);
        return stream.ToArray();
    }
}
