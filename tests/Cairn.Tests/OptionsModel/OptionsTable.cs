using System.Text.RegularExpressions;
using Cairn.Tests.Support;

namespace Cairn.Tests.OptionsModel;

/// <summary>One row of docs/options.md: an option's name, type, stated default and unit, as written.</summary>
internal sealed record OptionsTableRow(string Name, string Type, string Default, string Unit)
{
    /// <summary>The unit's first term (<c>bytes</c> of <c>bytes, multiple of 4 KiB</c>).</summary>
    public string UnitTerm => Unit.Split(',')[0].Trim();
}

/// <summary>
/// docs/options.md read as its tables: one section per options type (a heading <c>## `TypeName` (assembly)</c>),
/// each with rows <c>| `Name` | `Type` | default | unit | meaning |</c>.
/// </summary>
internal static partial class OptionsTable
{
    public static string Path { get; } = System.IO.Path.Combine(TestDirectory.RepositoryRoot, "docs", "options.md");

    /// <summary>The rows under each options type's heading, by type name then option name.</summary>
    public static IReadOnlyDictionary<string, IReadOnlyDictionary<string, OptionsTableRow>> Read() => Parse(File.ReadAllText(Path));

    public static IReadOnlyDictionary<string, IReadOnlyDictionary<string, OptionsTableRow>> Parse(string markdown)
    {
        var sections = new Dictionary<string, IReadOnlyDictionary<string, OptionsTableRow>>();
        Dictionary<string, OptionsTableRow>? rows = null;
        foreach (string line in markdown.Split('\n'))
        {
            if (Heading().Match(line) is { Success: true } heading)
            {
                rows = new Dictionary<string, OptionsTableRow>();
                sections.Add(heading.Groups["type"].Value, rows);
            }
            else if (line.StartsWith("## ", StringComparison.Ordinal))
                rows = null;
            else if (rows is not null && Row().Match(line) is { Success: true } row)
            {
                var name = row.Groups["name"].Value;
                rows.Add(name, new OptionsTableRow(name, row.Groups["type"].Value, row.Groups["default"].Value.Trim(), row.Groups["unit"].Value.Trim()));
            }
        }
        return sections;
    }

    [GeneratedRegex(@"^## `(?<type>\w+)`")]
    private static partial Regex Heading();

    [GeneratedRegex(@"^\| `(?<name>\w+)` \| `(?<type>[\w?<>, ]+)` \|(?<default>[^|]+)\|(?<unit>[^|]+)\|")]
    private static partial Regex Row();
}
