using System.Globalization;
using System.Text.RegularExpressions;
using Cairn.Tests.Support;

namespace Cairn.Tests.Paging;

/// <summary>
/// The byte tables of docs/on-disk-format.md, read as the layout tests need them: for the first
/// table under a heading, each row whose offset and size are plain numbers (rows like
/// "7 + `KeySize`" describe the variable part after a header, not a struct field). A row naming a
/// range ("Reserved1–5") stands for that many fields of equal size.
/// </summary>
internal static partial class OnDiskFormatTable
{
    public readonly record struct Field(string Name, int Offset, int Size);

    private static readonly Lazy<string[]> s_lines = new(() =>
        File.ReadAllLines(Path.Combine(TestDirectory.RepositoryRoot, "docs", "on-disk-format.md")));

    public static IReadOnlyList<Field> Fields(string headingStart)
    {
        string[] lines = s_lines.Value;
        int heading = Array.FindIndex(lines, line => line.StartsWith(headingStart, StringComparison.Ordinal));
        if (heading < 0)
            throw new InvalidOperationException($"docs/on-disk-format.md has no heading starting \"{headingStart}\"");
        var fields = new List<Field>();
        var rows = lines.Skip(heading + 1).SkipWhile(line => !line.StartsWith('|')).TakeWhile(line => line.StartsWith('|')).Skip(2);
        foreach (string row in rows)
        {
            string[] cells = row.Split('|', StringSplitOptions.TrimEntries)[1..^1];
            if (!int.TryParse(cells[0], CultureInfo.InvariantCulture, out int offset) || !int.TryParse(cells[1], CultureInfo.InvariantCulture, out int size))
                continue;
            var name = FieldName().Match(cells[2]);
            if (!name.Success)
                throw new InvalidOperationException($"cannot read a field name in \"{row}\"");
            if (!name.Groups["last"].Success)
            {
                fields.Add(new Field(name.Groups["name"].Value, offset, size));
                continue;
            }
            // "Reserved1–5": fields Reserved1 … Reserved5 sharing the row's bytes equally.
            string prefix = name.Groups["prefix"].Value;
            int first = int.Parse(name.Groups["first"].Value, CultureInfo.InvariantCulture);
            int count = int.Parse(name.Groups["last"].Value, CultureInfo.InvariantCulture) - first + 1;
            for (int i = 0; i < count; i++)
                fields.Add(new Field($"{prefix}{first + i}", offset + i * (size / count), size / count));
        }
        return fields;
    }

    [GeneratedRegex(@"^`?(?<name>(?<prefix>[A-Za-z]+?)(?<first>\d*)(–(?<last>\d+))?)\b")]
    private static partial Regex FieldName();
}
