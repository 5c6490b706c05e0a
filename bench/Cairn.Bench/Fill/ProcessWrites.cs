using System.Globalization;

namespace Cairn.Bench.Fill;

/// <summary>
/// Bytes this process sent toward the block layer, from <c>/proc/self/io</c>: <c>write_bytes</c> (counted when a page
/// of a file turns dirty in the page cache, or when a direct write is issued) less <c>cancelled_write_bytes</c> (dirty
/// pages dropped before write-back, e.g. a deleted file's). Unlike the device's count, other processes' writes (other
/// benches on a shared disk) do not count; unlike a store's own tally, a page rewritten while still dirty counts once.
/// </summary>
internal static class ProcessWrites
{
    /// <summary>The process's write bytes so far, or null where /proc does not say (not Linux).</summary>
    public static long? Bytes()
    {
        if (!File.Exists("/proc/self/io"))
            return null;
        long written = 0, cancelled = 0;
        foreach (var line in File.ReadLines("/proc/self/io"))
        {
            if (line.StartsWith("write_bytes:", StringComparison.Ordinal))
                written = Value(line);
            else if (line.StartsWith("cancelled_write_bytes:", StringComparison.Ordinal))
                cancelled = Value(line);
        }
        return written - cancelled;
    }

    private static long Value(string line) => long.Parse(line[(line.IndexOf(':') + 1)..].Trim(), CultureInfo.InvariantCulture);
}
