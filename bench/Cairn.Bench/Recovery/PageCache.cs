using System.Runtime.InteropServices;

namespace Cairn.Bench.Recovery;

/// <summary>Empties the OS page cache where the process may (root, /proc/sys writable), so an open reads from the disk.</summary>
public static partial class PageCache
{
    private const string DropCaches = "/proc/sys/vm/drop_caches";

    /// <summary>
    /// sync(2), then "3" into drop_caches (page cache, dentries and inodes; only clean pages can be
    /// dropped, hence the sync). Returns whether it was done, and why not when it was not.
    /// </summary>
    public static (bool Dropped, string How) TryDrop()
    {
        if (!OperatingSystem.IsLinux())
            return (false, "not Linux");
        Sync();
        try
        {
            File.WriteAllText(DropCaches, "3");
            return (true, "sync; echo 3 > " + DropCaches);
        }
        catch (Exception e) when (e is UnauthorizedAccessException or IOException)
        {
            return (false, $"{DropCaches} not writable ({e.Message})");
        }
    }

    /// <summary>Reads every file under <paramref name="directory"/> once, so all of it is in the page cache.</summary>
    public static void Warm(string directory)
    {
        var buffer = new byte[1 << 20];
        foreach (var path in Directory.EnumerateFiles(directory, "*", SearchOption.AllDirectories))
        {
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, bufferSize: 0);
            while (stream.Read(buffer) > 0)
            {
            }
        }
    }

    [LibraryImport("libc.so.6", EntryPoint = "sync")]
    private static partial void Sync();
}
