using System.Diagnostics;
using System.Globalization;
using Cairn.Stress.Protocol;

namespace Cairn.Stress.Child;

/// <summary>A soak child's measurements of itself, one line per interval.</summary>
internal static class ResourceSampler
{
    public static void Run(IReadOnlyList<StorageEnvironment> environments, TimeSpan interval, StopRequest stop, ChildOutput output)
    {
        using var queue = new MergerQueueGauge();
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
                environments.Sum(e => e.ScratchBytesInUse), (int)Math.Min(int.MaxValue, queue.Read()),
                environments.Sum(e => e.JournalBytesOnDisk), 0)));
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
}
