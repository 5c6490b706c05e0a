namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>The last lines of a node's captured output, for failure messages.</summary>
internal static class OutputTail
{
    public const int Lines = 20;

    /// <summary>The last <paramref name="lines"/> lines of <paramref name="path"/>, read while the node may still write it.</summary>
    public static string Of(string path, int lines = Lines)
    {
        if (!File.Exists(path))
            return "(no output file)";
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        // Only the end is read: a chatty node's output can be large, and the tail is what explains a failure.
        const int MaxBytes = 16 << 10;
        if (stream.Length > MaxBytes)
            stream.Seek(-MaxBytes, SeekOrigin.End);
        using var reader = new StreamReader(stream);
        var all = reader.ReadToEnd().Split('\n');
        var tail = all.Skip(Math.Max(0, all.Length - lines - 1)).ToArray();
        string text = string.Join('\n', tail).TrimEnd('\n');
        return text.Length == 0 ? "(empty)" : text;
    }
}
