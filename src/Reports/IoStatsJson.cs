using System.Text.Json;
using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>
/// The JSON form of <see cref="IoStats"/> for tools (schema: docs/design.md, "IO statistics").
/// Properties are camelCase and always written in the same order; every kind has a summary, even
/// with no operations. Durations are decimal numbers of exact 100 ns resolution: microseconds with
/// one decimal, or milliseconds with four.
/// </summary>
public static class IoStatsJson
{
    /// <summary>
    /// Writes the statistics as one UTF-8 JSON document (schema: docs/design.md, "IO statistics").
    /// The summary and the operations come from the same snapshot. The stream is flushed, not closed.
    /// </summary>
    /// <param name="stats">The statistics to write.</param>
    /// <param name="utf8Output">Where the document goes.</param>
    public static void WriteJson(this IoStats stats, Stream utf8Output)
    {
        ArgumentNullException.ThrowIfNull(stats);
        ArgumentNullException.ThrowIfNull(utf8Output);
        var operations = stats.Snapshot();
        using var writer = new Utf8JsonWriter(utf8Output);
        Write(writer, stats.Capacity, stats.TotalRecorded, stats.Dropped, IoStatsSummary.From(operations), operations);
        writer.Flush();
    }

    /// <summary>
    /// Reads a document written by <see cref="WriteJson"/> (a saved dump) into a ring of the capacity it names,
    /// holding its operations under their sequence numbers, with its <see cref="IoStats.TotalRecorded"/> and
    /// <see cref="IoStats.Dropped"/>: its <see cref="IoStats.Snapshot"/>, summaries, text, JSON and HTML are those
    /// of the environment that wrote it (times exact to 100 ns). The summary in the document is not read: it is
    /// recomputed from the operations, as it was computed when written.
    /// </summary>
    /// <param name="utf8Json">The document.</param>
    /// <exception cref="InvalidDataException">The stream does not hold such a document; the message says where it differs.</exception>
    public static IoStats ReadJson(Stream utf8Json)
    {
        ArgumentNullException.ThrowIfNull(utf8Json);
        var dump = IoStatsJsonReader.Read(utf8Json);
        return IoStats.FromOperations(dump.Capacity, dump.TotalRecorded, dump.Dropped, dump.Operations);
    }

    private static void Write(Utf8JsonWriter writer, int capacity, long totalRecorded, long dropped,
                             IoStatsSummary summary, ReadOnlySpan<IoOperation> operations)
    {
        writer.WriteStartObject();
        writer.WriteNumber("capacity", capacity);
        writer.WriteNumber("totalRecorded", totalRecorded);
        writer.WriteNumber("dropped", dropped);

        writer.WriteStartObject("summary");
        foreach (var kind in summary.Kinds)
            WriteKind(writer, kind);
        writer.WriteEndObject();

        writer.WriteStartArray("operations");
        foreach (ref readonly var operation in operations)
            WriteOperation(writer, operation);
        writer.WriteEndArray();

        writer.WriteEndObject();
    }

    private static void WriteKind(Utf8JsonWriter writer, IoKindSummary kind)
    {
        writer.WriteStartObject(IoKindNames.CamelCase(kind.Kind));
        writer.WriteNumber("count", kind.Count);
        writer.WriteNumber("failed", kind.Failed);
        writer.WriteNumber("bytes", kind.Bytes);
        writer.WriteNumber("totalMs", Milliseconds(kind.TotalDuration));
        writer.WriteNumber("meanUs", Microseconds(kind.MeanDuration));
        writer.WriteNumber("p50Us", Microseconds(kind.P50Duration));
        writer.WriteNumber("p99Us", Microseconds(kind.P99Duration));
        writer.WriteNumber("maxUs", Microseconds(kind.MaxDuration));
        // Whole bytes: a fraction of a byte per second tells nobody anything.
        writer.WriteNumber("bytesPerSecond", Math.Round(kind.BytesPerSecond));
        writer.WriteEndObject();
    }

    private static void WriteOperation(Utf8JsonWriter writer, in IoOperation operation)
    {
        writer.WriteStartObject();
        writer.WriteNumber("seq", operation.Sequence);
        writer.WriteString("kind", IoKindNames.CamelCase(operation.Kind));
        writer.WriteString("startUtc", operation.StartUtc);
        writer.WriteNumber("durationUs", Microseconds(operation.Duration));
        writer.WriteNumber("bytes", operation.Bytes);
        writer.WriteString("file", operation.FilePath);
        writer.WriteNumber("firstTx", operation.FirstTransactionId);
        writer.WriteNumber("lastTx", operation.LastTransactionId);
        writer.WriteNumber("txCount", operation.TransactionCount);
        writer.WriteBoolean("failed", operation.Failed);
        writer.WriteNumber("environments", operation.EnvironmentCount);
        if (operation.Environments.Count > 0)
        {
            writer.WriteStartArray("carried");
            foreach (string name in operation.Environments)
                writer.WriteStringValue(name);
            writer.WriteEndArray();
        }
        writer.WriteEndObject();
    }

    // A TimeSpan tick is 100 ns, so ticks with a decimal scale of 1 are microseconds and with a
    // scale of 4 milliseconds, exactly, and the decimal keeps its trailing zero ("12.0").
    private static decimal Microseconds(TimeSpan duration) => Scaled(duration.Ticks, scale: 1);

    private static decimal Milliseconds(TimeSpan duration) => Scaled(duration.Ticks, scale: 4);

    private static decimal Scaled(long ticks, byte scale)
    {
        ulong magnitude = ticks < 0 ? (ulong)-ticks : (ulong)ticks;
        return new decimal((int)(uint)magnitude, (int)(uint)(magnitude >> 32), 0, ticks < 0, scale);
    }
}
