using System.Text.Json;
using System.Text.Json.Serialization;

namespace Cairn.Cli.Output;

/// <summary>The tool's JSON: camelCase, enums as their names, indented, one document per command on standard output.</summary>
internal static class CliJson
{
    private static readonly JsonSerializerOptions Options = new(JsonSerializerDefaults.Web)
    {
        WriteIndented = true,
        Converters = { new JsonStringEnumConverter(JsonNamingPolicy.CamelCase) },
    };

    public static void Write<T>(TextWriter output, T value) => output.WriteLine(JsonSerializer.Serialize(value, Options));
}
