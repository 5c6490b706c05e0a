namespace Cairn.Cluster.Tests.Nemesis.Schedule;

/// <summary>
/// What the nemesis did, when and to which node, one line per event, written to a file in the test's scratch folder
/// as it goes (so a hung or crashed campaign still leaves it) and kept for failure messages.
/// </summary>
public sealed class NemesisEventLog
{
    // Guards lines and the file's appends, so lines from overlapping writers stay whole and in one order.
    private readonly Lock gate = new();
    private readonly List<string> lines = [];

    public NemesisEventLog(string path)
    {
        Path = path;
        File.WriteAllText(path, "");
    }

    public string Path { get; }

    public IReadOnlyList<string> Lines
    {
        get
        {
            lock (gate)
                return lines.ToList();
        }
    }

    public void Write(string entry)
    {
        string line = $"{DateTime.UtcNow:HH:mm:ss.fff} {entry}";
        lock (gate)
        {
            lines.Add(line);
            File.AppendAllText(Path, line + "\n");
        }
    }

    /// <summary>The last <paramref name="count"/> lines and where the whole log is, for a failure message.</summary>
    public string Tail(int count = 30)
    {
        var all = Lines;
        return $"nemesis log ({Path}, last {Math.Min(count, all.Count)} of {all.Count}):\n{string.Join('\n', all.Skip(all.Count - count))}";
    }
}
