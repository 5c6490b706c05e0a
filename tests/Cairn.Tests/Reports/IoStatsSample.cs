using System.Text.Json;
using Cairn.Diagnostics;
using Cairn.Reports;
using Cairn.Tests.Diagnostics;

namespace Cairn.Tests.Reports;

/// <summary>
/// A made-up but typical minute of an environment's I/O, as the JSON dump a host would save: durable commits'
/// journal writes every couple of milliseconds across growing journal files, a flush and a sync each second, a
/// stretch where the disk was slow (writes of several milliseconds, a 45 ms stall, a slow flush and sync) and
/// one failed write. Fixed times and a fixed seed: the same document every run, so the picture drawn from it is
/// the same too.
/// </summary>
internal static class IoStatsSample
{
    public const string Directory = "/srv/cairn/orders";
    public static readonly DateTime Start = new(2026, 11, 22, 19, 12, 20, DateTimeKind.Utc);

    public static IoStats Create() => IoStatsJson.ReadJson(new MemoryStream(Json()));

    public static byte[] Json()
    {
        var random = new Random(15);
        var output = new MemoryStream();
        using (var json = new Utf8JsonWriter(output))
        {
            var operations = Operations(random);
            json.WriteStartObject();
            json.WriteNumber("capacity", 4096);
            json.WriteNumber("totalRecorded", operations.Count + 1200);
            json.WriteNumber("dropped", 0);
            json.WriteStartArray("operations");
            for (int seq = 0; seq < operations.Count; seq++)
            {
                var (kind, start, microseconds, bytes, file, firstTx, lastTx, failed) = operations[seq];
                json.WriteStartObject();
                json.WriteNumber("seq", seq + 1200);
                json.WriteString("kind", kind);
                json.WriteString("startUtc", Start.AddTicks(start));
                json.WriteNumber("durationUs", Math.Round((decimal)microseconds, 1));
                json.WriteNumber("bytes", bytes);
                json.WriteString("file", file);
                json.WriteNumber("firstTx", firstTx);
                json.WriteNumber("lastTx", lastTx);
                json.WriteNumber("txCount", kind == "dataSync" ? lastTx - firstTx + 1 : Math.Max(1, lastTx - firstTx + 1));
                json.WriteBoolean("failed", failed);
                json.WriteEndObject();
            }
            json.WriteEndArray();
            json.WriteEndObject();
        }
        return output.ToArray();
    }

    private static List<(string Kind, long StartTicks, double Microseconds, long Bytes, string File, long FirstTx, long LastTx, bool Failed)> Operations(Random random)
    {
        var operations = new List<(string, long, double, long, string, long, long, bool)>();
        const long journalFileBase = 1;
        long tx = 5_000, flushedTx = tx - 1, fileBytes = 0, fileSize = 1 << 20, journal = journalFileBase;
        long t = 0;
        for (int second = 0; second < 6; second++)
        {
            long secondEnd = (second + 1) * TimeSpan.TicksPerSecond;
            while (t < secondEnd - 20 * TimeSpan.TicksPerMillisecond)
            {
                long bytes = 4096L * random.Next(1, 5);
                if (fileBytes + bytes > fileSize)
                {
                    journal++;
                    fileBytes = 0;
                    fileSize = Math.Min(fileSize * 2, 4 << 20);
                }
                fileBytes += bytes;
                bool slowStretch = t is > 3_200 * TimeSpan.TicksPerMillisecond and < 3_550 * TimeSpan.TicksPerMillisecond;
                double microseconds = slowStretch ? 1_800 + random.Next(7_000) : 55 + random.Next(45) + (random.Next(200) == 0 ? 600 : 0);
                if (slowStretch && random.Next(40) == 0)
                    microseconds = 45_000;
                bool failed = t is > 4_100 * TimeSpan.TicksPerMillisecond && operations.All(o => !o.Item8);
                string file = $"{Directory}/Journals/{journal:D19}.journal";
                operations.Add(("journalWrite", t, microseconds, bytes, file, tx, tx, failed));
                if (!failed)
                    tx++;
                t += (long)(microseconds * 10) + TimeSpan.TicksPerMillisecond * random.Next(1, 3);
            }
            // The flusher's turn, on its own thread while commits go on: the pages of the second's commits, then a sync.
            bool slow = second == 3;
            double flush = slow ? 61_000 : 2_500 + random.Next(5_000);
            operations.Add(("dataFlush", t, flush, 8192L * random.Next(300, 1500), $"{Directory}/cairn.data", flushedTx + 1, tx - 1, false));
            double sync = slow ? 118_000 : 1_900 + random.Next(3_000);
            operations.Add(("dataSync", t + (long)(flush * 10), sync, 0, $"{Directory}/cairn.data", flushedTx + 1, tx - 1, false));
            flushedTx = tx - 1;
        }
        return operations;
    }
}
