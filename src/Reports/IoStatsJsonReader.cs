using System.Numerics;
using System.Text.Json;
using Cairn.Diagnostics;

namespace Cairn.Reports;

/// <summary>A document <see cref="IoStatsJson"/> wrote, read back: the ring's counters and its operations, oldest first.</summary>
internal sealed record IoStatsDump(int Capacity, long TotalRecorded, long Dropped, IReadOnlyList<IoOperation> Operations);

/// <summary>
/// Reads the JSON form of <see cref="IoStats"/> (schema: docs/design.md, "IO statistics"), so a dump saved by a
/// host can be summarized and drawn again. The summary in the document is not read: it is recomputed from the
/// operations, as it was computed when written. Anything that the writer could not have produced is refused
/// with an <see cref="InvalidDataException"/> saying where.
/// </summary>
internal static class IoStatsJsonReader
{
    public static IoStatsDump Read(Stream utf8Json)
    {
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(utf8Json);
        }
        catch (JsonException e)
        {
            throw new InvalidDataException($"not a JSON document: {e.Message}", e);
        }
        using (document)
            return Read(document.RootElement);
    }

    private static IoStatsDump Read(JsonElement root)
    {
        if (root.ValueKind != JsonValueKind.Object)
            throw Invalid("$", "the document is not a JSON object");
        int capacity = (int)Number(root, "capacity", "$", min: IoStats.MinimumCapacity, max: 1 << 30);
        if (!BitOperations.IsPow2(capacity))
            throw Invalid("$.capacity", $"{capacity} is not a power of two");
        long total = Number(root, "totalRecorded", "$");
        long dropped = Number(root, "dropped", "$");
        var elements = Property(root, "operations", "$", JsonValueKind.Array);

        var operations = new List<IoOperation>(elements.GetArrayLength());
        int index = 0;
        foreach (var element in elements.EnumerateArray())
        {
            string path = $"$.operations[{index++}]";
            var operation = Operation(element, path);
            long previous = operations.Count > 0 ? operations[^1].Sequence : -1;
            if (operation.Sequence <= previous || operation.Sequence < total - capacity || operation.Sequence >= total)
                throw Invalid(path + ".seq", $"sequence {operation.Sequence} is out of order, or outside the last {capacity} of {total} recorded");
            operations.Add(operation);
        }
        return new IoStatsDump(capacity, total, dropped, operations);
    }

    private static IoOperation Operation(JsonElement element, string path)
    {
        if (element.ValueKind != JsonValueKind.Object)
            throw Invalid(path, "an operation is not a JSON object");
        string kindName = Property(element, "kind", path, JsonValueKind.String).GetString()!;
        if (!IoKindNames.TryParse(kindName, out var kind))
            throw Invalid(path + ".kind", $"'{kindName}' is not an I/O operation kind");
        var startElement = Property(element, "startUtc", path, JsonValueKind.String);
        if (!startElement.TryGetDateTime(out var start) || start.Kind != DateTimeKind.Utc)
            throw Invalid(path + ".startUtc", "not an ISO 8601 UTC time ending in Z");
        var durationElement = Property(element, "durationUs", path, JsonValueKind.Number);
        if (!durationElement.TryGetDecimal(out decimal microseconds) || microseconds < 0 || microseconds > TimeSpan.MaxValue.Ticks / 10)
            throw Invalid(path + ".durationUs", "not a duration in microseconds");
        int environments = element.TryGetProperty("environments", out _)
            ? (int)Number(element, "environments", path, min: 1, max: ushort.MaxValue)
            : 1; // written only since journal groups
        return new IoOperation
        {
            Sequence = Number(element, "seq", path),
            Kind = kind,
            StartUtc = start,
            Duration = new TimeSpan((long)Math.Round(microseconds * 10)),
            Bytes = Number(element, "bytes", path),
            FilePath = Property(element, "file", path, JsonValueKind.String).GetString()!,
            FirstTransactionId = Number(element, "firstTx", path, min: long.MinValue),
            LastTransactionId = Number(element, "lastTx", path, min: long.MinValue),
            TransactionCount = (int)Number(element, "txCount", path, max: int.MaxValue),
            Failed = Property(element, "failed", path, JsonValueKind.True, JsonValueKind.False).GetBoolean(),
            EnvironmentCount = environments,
            Environments = Carried(element, path),
        };
    }

    /// <summary>The names of the environments a shared write carried: written only since IO stats named them.</summary>
    private static string[] Carried(JsonElement element, string path)
    {
        if (!element.TryGetProperty("carried", out _))
            return [];
        var array = Property(element, "carried", path, JsonValueKind.Array);
        var names = new string[array.GetArrayLength()];
        int i = 0;
        foreach (var name in array.EnumerateArray())
        {
            if (name.ValueKind != JsonValueKind.String)
                throw Invalid($"{path}.carried[{i}]", "an environment's name is not a string");
            names[i++] = name.GetString()!;
        }
        return names;
    }

    private static long Number(JsonElement parent, string name, string path, long min = 0, long max = long.MaxValue)
    {
        var element = Property(parent, name, path, JsonValueKind.Number);
        if (!element.TryGetInt64(out long value) || value < min || value > max)
            throw Invalid($"{path}.{name}", $"{element.GetRawText()} is not a whole number from {min} to {max}");
        return value;
    }

    private static JsonElement Property(JsonElement parent, string name, string path, params JsonValueKind[] kinds)
    {
        if (!parent.TryGetProperty(name, out var element))
            throw Invalid($"{path}.{name}", "missing");
        if (!kinds.Contains(element.ValueKind))
            throw Invalid($"{path}.{name}", $"expected {string.Join(" or ", kinds)}, found {element.ValueKind}");
        return element;
    }

    private static InvalidDataException Invalid(string path, string problem)
        => new($"not an I/O statistics document (IoStatsJson.WriteJson): {path}: {problem}");
}
