using System.Globalization;

namespace Cairn.Bench.Fill;

/// <summary>
/// Bytes the block device under a directory has written, from <c>/proc/diskstats</c> (sectors written × 512):
/// what reached the disk, whoever wrote it (the engine, the kernel's write-back of its dirty pages, the file
/// system's journal). The device is the one mounted at the longest mount point holding the directory
/// (<c>/proc/self/mountinfo</c>). Other processes' writes to the same device count too: take figures from
/// interleaved rounds on an otherwise quiet disk.
/// </summary>
internal sealed class DeviceWrites
{
    private readonly string _majorMinor;

    private DeviceWrites(string majorMinor, string device)
    {
        _majorMinor = majorMinor;
        Device = device;
    }

    public string Device { get; }

    /// <summary>The device under <paramref name="directory"/>, or null where /proc does not say (not Linux, or a device with no statistics).</summary>
    public static DeviceWrites? For(string directory)
    {
        if (!File.Exists("/proc/self/mountinfo") || !File.Exists("/proc/diskstats"))
            return null;
        string path = Path.GetFullPath(directory);
        string? best = null;
        string? bestMajorMinor = null;
        foreach (var line in File.ReadLines("/proc/self/mountinfo"))
        {
            var fields = line.Split(' ');
            if (fields.Length < 5)
                continue;
            string mountPoint = fields[4].Replace("\\040", " ", StringComparison.Ordinal);
            bool holds = path == mountPoint || path.StartsWith(mountPoint.TrimEnd('/') + "/", StringComparison.Ordinal) || mountPoint == "/";
            if (holds && (best is null || mountPoint.Length > best.Length))
            {
                best = mountPoint;
                bestMajorMinor = fields[2];
            }
        }
        if (bestMajorMinor is null)
            return null;
        foreach (var line in File.ReadLines("/proc/diskstats"))
        {
            var fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (fields.Length > 9 && $"{fields[0]}:{fields[1]}" == bestMajorMinor)
                return new DeviceWrites(bestMajorMinor, fields[2]);
        }
        return null;
    }

    /// <summary>Bytes written to the device since boot.</summary>
    public long BytesWritten() => Counters()[6] * 512;

    /// <summary>
    /// The device's counters since boot, in /proc/diskstats' order after its name (Documentation/admin-guide/iostats.rst):
    /// [4] writes completed, [6] sectors written, [7] ms writing, [8] in flight, [15] flushes completed, [16] ms flushing
    /// (those two absent, as zero, before Linux 5.5).
    /// </summary>
    public long[] Counters()
    {
        foreach (var line in File.ReadLines("/proc/diskstats"))
        {
            var fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (fields.Length > 9 && $"{fields[0]}:{fields[1]}" == _majorMinor)
            {
                var counters = new long[17];
                for (int i = 3; i < fields.Length && i - 3 < counters.Length; i++)
                    counters[i - 3] = long.Parse(fields[i], CultureInfo.InvariantCulture);
                return counters;
            }
        }
        throw new InvalidOperationException($"/proc/diskstats no longer lists {Device} ({_majorMinor})");
    }
}
