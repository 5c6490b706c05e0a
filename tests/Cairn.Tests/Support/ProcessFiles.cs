namespace Cairn.Tests.Support;

/// <summary>What this process has open or mapped, read from /proc, to prove handles are released.</summary>
public static class ProcessFiles
{
    public static int OpenDescriptorsFor(string path)
    {
        var full = System.IO.Path.GetFullPath(path);
        int count = 0;
        foreach (var fd in Directory.EnumerateFileSystemEntries("/proc/self/fd"))
        {
            try
            {
                if (new FileInfo(fd).LinkTarget == full)
                    count++;
            }
            catch (IOException)
            {
                // the descriptor closed while we looked
            }
        }
        return count;
    }

    public static int MappingsOf(string path)
    {
        var full = System.IO.Path.GetFullPath(path);
        return System.IO.File.ReadLines("/proc/self/maps").Count(line => line.EndsWith(" " + full, StringComparison.Ordinal));
    }
}
