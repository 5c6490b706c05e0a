using System.Text.Json;

namespace Cairn.Diagnostics;

/// <summary>
/// The JSON form of <see cref="IoStats"/> for tools (schema: docs/design.md, "IO statistics").
/// Properties are camelCase and always written in the same order; every kind has a summary, even
/// with no operations. Durations are decimal numbers of exact 100 ns resolution: microseconds with
/// one decimal, or milliseconds with four.
/// </summary>
internal static class IoStatsJson
{
    public static void Write(Utf8JsonWriter writer, int capacity, long totalRecorded, long dropped,
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
        writer.WriteStartObject(IoOperationKindNames.CamelCase(kind.Kind));
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
        writer.WriteString("kind", IoOperationKindNames.CamelCase(operation.Kind));
        writer.WriteString("startUtc", operation.StartUtc);
        writer.WriteNumber("durationUs", Microseconds(operation.Duration));
        writer.WriteNumber("bytes", operation.Bytes);
        writer.WriteString("file", operation.FilePath);
        writer.WriteNumber("firstTx", operation.FirstTransactionId);
        writer.WriteNumber("lastTx", operation.LastTransactionId);
        writer.WriteNumber("txCount", operation.TransactionCount);
        writer.WriteBoolean("failed", operation.Failed);
        writer.WriteNumber("environments", operation.EnvironmentCount);
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
