using System.Text;

namespace Cairn.Cli.Output;

/// <summary>Rows printed as aligned columns: text columns left-aligned, numbers right-aligned, two spaces apart.</summary>
internal sealed class Table(params (string Heading, bool Numeric)[] columns)
{
    private readonly List<string[]> _rows = [];

    public void Add(params string[] cells)
    {
        if (cells.Length != columns.Length)
            throw new ArgumentException($"A row has {columns.Length} cells, not {cells.Length}.", nameof(cells));
        _rows.Add(cells);
    }

    public void WriteTo(TextWriter output, string indent = "  ", bool headings = true)
    {
        var widths = columns.Select(c => headings ? c.Heading.Length : 0).ToArray();
        foreach (var row in _rows)
            for (int c = 0; c < row.Length; c++)
                widths[c] = Math.Max(widths[c], row[c].Length);
        if (headings)
            WriteRow(output, indent, widths, columns.Select(c => c.Heading).ToArray());
        foreach (var row in _rows)
            WriteRow(output, indent, widths, row);
    }

    private void WriteRow(TextWriter output, string indent, int[] widths, string[] cells)
    {
        var line = new StringBuilder(indent);
        for (int c = 0; c < cells.Length; c++)
        {
            if (c > 0)
                line.Append("  ");
            line.Append(columns[c].Numeric ? cells[c].PadLeft(widths[c]) : cells[c].PadRight(widths[c]));
        }
        output.WriteLine(line.ToString().TrimEnd());
    }
}
