using Cairn.Tests.Support;

namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>
/// A stand-in node for the process nemesis's own tests: a shell loop that appends a counter line to a file every few
/// milliseconds (through a child `sleep`, so each node has children of its own to stop and kill), its progress read
/// from the file. Every node it starts carries a marker variable, so a test can find any process that outlived it.
/// </summary>
internal static class CounterNode
{
    public const string MarkerVariable = "CAIRN_NEMESIS_TEST_MARKER";

    /// <summary>The loop, counting into <paramref name="counterFile"/>; <paramref name="prelude"/> runs first.</summary>
    public static NodeCommand Command(TestDirectory dir, string counterFile, string marker, string prelude = "")
        => NodeCommand.Bash(
            $"{prelude} i=0; while true; do i=$((i+1)); echo $i >> '{counterFile}'; sleep 0.005; done",
            dir.Path,
            new Dictionary<string, string?> { [MarkerVariable] = marker });

    /// <summary>Lines counted so far.</summary>
    public static int Count(string counterFile)
        => File.Exists(counterFile) ? File.ReadAllLines(counterFile).Count(line => line.Length > 0) : 0;

    /// <summary>Live processes (not zombies) anywhere on the machine whose environment carries <paramref name="marker"/>.</summary>
    public static IReadOnlyList<int> LiveProcessesMarked(string marker)
    {
        var found = new List<int>();
        byte[] wanted = System.Text.Encoding.ASCII.GetBytes($"{MarkerVariable}={marker}\0");
        foreach (var entry in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(entry), out int pid))
                continue;
            try
            {
                if (File.ReadAllBytes(Path.Combine(entry, "environ")).AsSpan().IndexOf(wanted) >= 0
                    && ProcStat.Read(pid) is { IsZombie: false })
                    found.Add(pid);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // gone while we looked, or not ours to read
            }
        }
        return found;
    }
}
