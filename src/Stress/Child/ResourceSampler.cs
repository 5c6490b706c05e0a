using System.Diagnostics;
using System.Globalization;
using Cairn.Stress.Protocol;

namespace Cairn.Stress.Child;

/// <summary>A soak child's measurements of itself, one line per interval.</summary>
internal static class ResourceSampler
{
    // The engine's journal folder in every environment (docs/on-disk-format.md).
    private const string JournalFolder = "Journals";

    public static void Run(IReadOnlyList<StorageEnvironment> environments, TimeSpan interval, StopRequest stop, ChildOutput output)
    {
        var since = Stopwatch.StartNew();
        var next = interval;
        while (!stop.IsRequested)
        {
            var wait = next - since.Elapsed;
            if (wait > TimeSpan.Zero)
            {
                Thread.Sleep(wait < TimeSpan.FromMilliseconds(100) ? wait : TimeSpan.FromMilliseconds(100));
                continue;
            }
            next += interval;
            output.Say(ChildLines.Sample(new SoakSample(since.Elapsed, ResidentBytes(), GC.GetTotalMemory(forceFullCollection: false),
                environments.Sum(e => e.ScratchBytesInUse), environments.Sum(e => e.MergerQueueLength),
                environments.Sum(e => JournalBytes(e.DirectoryPath)), 0)));
        }
    }

    /// <summary>VmRSS from /proc/self/status where there is one, else the runtime's working set.</summary>
    private static long ResidentBytes()
    {
        const string status = "/proc/self/status";
        if (File.Exists(status))
        {
            foreach (var line in File.ReadLines(status))
            {
                if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
                    return 1024 * long.Parse(line["VmRSS:".Length..].Trim().Split(' ')[0], CultureInfo.InvariantCulture);
            }
        }
        return Environment.WorkingSet;
    }

    private static long JournalBytes(string directory)
    {
        long bytes = 0;
        try
        {
            foreach (var file in new DirectoryInfo(Path.Combine(directory, JournalFolder)).EnumerateFiles())
                bytes += file.Length;
        }
        catch (IOException)
        {
            // The flusher deletes journals while this counts; the next sample sees the folder settled.
        }
        return bytes;
    }
}
