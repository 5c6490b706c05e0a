using System.Text;

namespace Cairn.Reports;

/// <summary>
/// Rows of cells rendered as aligned columns: the first column left-aligned (names), the others
/// right-aligned (numbers), each as wide as its widest cell, two spaces apart.
/// </summary>
internal sealed class TextTable(params string[] header)
{
    private readonly List<string[]> _rows = [header];

    public void Add(params string[] cells)
    {
        if (cells.Length != header.Length)
            throw new ArgumentException($"A row has {header.Length} cells, not {cells.Length}.", nameof(cells));
        _rows.Add(cells);
    }

    /// <param name="text">Where the table is appended, one line per row after the header.</param>
    /// <param name="indent">Put before every line.</param>
    /// <param name="leftAlignedColumns">Columns besides the first to left-align, such as free text in the last one.</param>
    public void AppendTo(StringBuilder text, string indent = "", params int[] leftAlignedColumns)
    {
        var widths = new int[header.Length];
        foreach (var row in _rows)
        {
            for (int column = 0; column < row.Length; column++)
                widths[column] = Math.Max(widths[column], row[column].Length);
        }
        foreach (var row in _rows)
        {
            var line = new StringBuilder(indent);
            for (int column = 0; column < row.Length; column++)
            {
                if (column > 0)
                    line.Append("  ");
                bool left = column == 0 || leftAlignedColumns.Contains(column);
                line.Append(left ? row[column].PadRight(widths[column]) : row[column].PadLeft(widths[column]));
            }
            text.Append(line.ToString().TrimEnd()).Append('\n');
        }
    }
}
