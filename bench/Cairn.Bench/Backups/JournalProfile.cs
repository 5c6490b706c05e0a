using System.Diagnostics;
using Cairn.Bench.Fill;
using Cairn.Diagnostics;

namespace Cairn.Bench.Backups;

/// <summary>
/// What the writers' journal saw in one window of <see cref="BackupRun"/>'s writers part: its writes' latency (from
/// submission until durable, <see cref="StorageEnvironment.IoStats"/>) and, from /proc/diskstats, the device's writes
/// and flushes (an O_DSYNC journal write on a device without FUA is a write and a flush). The device counters include
/// every process's I/O on that device: read them beside the load.
/// </summary>
internal sealed class JournalProfile
{
    private readonly StorageEnvironment _env;
    private readonly DeviceWrites? _device;

    private JournalProfile(StorageEnvironment env, DeviceWrites? device)
    {
        _env = env;
        _device = device;
    }

    public static JournalProfile For(StorageEnvironment env, string directory) => new(env, DeviceWrites.For(directory));

    public Window Start() => new(DateTime.UtcNow, Stopwatch.GetTimestamp(), _device?.Counters());

    /// <summary>The window's figures, one line.</summary>
    public string End(Window window)
    {
        double seconds = Stopwatch.GetElapsedTime(window.Timestamp).TotalSeconds;
        var end = DateTime.UtcNow;
        var writes = _env.IoStats.Snapshot()
            .Where(o => o.Kind == IoOperationKind.JournalWrite && o.StartUtc >= window.StartUtc && o.StartUtc < end)
            .Select(o => o.Duration.TotalMicroseconds).Order().ToArray();
        string journal = writes.Length == 0 ? "journal: no writes"
            : $"journal {writes.Length / seconds:N0} writes/s, µs mean {writes.Average():N0} p50 {writes[writes.Length / 2]:N0} "
              + $"p99 {writes[Math.Min(writes.Length - 1, writes.Length * 99 / 100)]:N0} max {writes[^1]:N0}";
        if (_device is null || window.Device is null)
            return journal;
        var now = _device.Counters();
        long deviceWrites = now[4] - window.Device[4], flushes = now[15] - window.Device[15];
        double mib = (now[6] - window.Device[6]) * 512.0 / (1 << 20);
        string writeMs = deviceWrites == 0 ? "-" : $"{(double)(now[7] - window.Device[7]) / deviceWrites:0.00}";
        string flushMs = flushes == 0 ? "-" : $"{(double)(now[16] - window.Device[16]) / flushes:0.00}";
        return $"{journal}; {_device.Device}: {mib / seconds:N0} MiB/s written in {deviceWrites / seconds:N0} writes/s (ms each {writeMs}), "
            + $"{flushes / seconds:N0} flushes/s (ms each {flushMs})";
    }

    public sealed record Window(DateTime StartUtc, long Timestamp, long[]? Device);
}
