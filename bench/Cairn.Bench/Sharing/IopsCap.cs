using System.Globalization;

namespace Cairn.Bench.Sharing;

/// <summary>
/// <c>--iops-cap N</c>: the bench process runs in a cgroup of its own that caps the device holding its folder at N
/// write operations per second (cgroup v1 <c>blkio.throttle.write_iops_device</c>), as a cloud volume billed by
/// I/O operations caps them. <see cref="Enter"/> creates the cgroup and moves the process (every thread) into it;
/// <see cref="Dispose"/> moves it back and removes the cgroup, also after a failure or Ctrl-C. A machine with no
/// blkio controller, or no permission to make one, gets an <see cref="IopsCapUnavailableException"/> saying so:
/// the bench never runs uncapped while the user asked for a cap.
/// </summary>
/// <remarks>
/// The throttle counts the block layer's operations, not system calls: an O_DIRECT|O_DSYNC write may cost more than
/// one (the data, and a flush or FUA write for the sync), so <see cref="WriteOperations"/> is read around the device
/// ceiling's writes to report what one write costs under the cap.
/// </remarks>
internal sealed class IopsCap : IDisposable
{
    private const string BlkioRoot = "/sys/fs/cgroup/blkio";

    private readonly string _cgroup;
    private readonly string _returnTo;
    private readonly ConsoleCancelEventHandler _onCancel;
    private int _disposed;

    private IopsCap(string cgroup, string returnTo, string device, int iops)
    {
        _cgroup = cgroup;
        _returnTo = returnTo;
        Device = device;
        Iops = iops;
        _onCancel = (_, _) => Dispose();
        Console.CancelKeyPress += _onCancel;
        AppDomain.CurrentDomain.ProcessExit += (_, _) => Dispose();
    }

    /// <summary>The capped device, "major:minor".</summary>
    public string Device { get; }

    public int Iops { get; }

    public string CgroupPath => _cgroup;

    /// <summary>Caps the device that holds <paramref name="directory"/> at <paramref name="iops"/> writes per second for this process.</summary>
    public static IopsCap Enter(string directory, int iops)
    {
        if (!File.Exists(Path.Combine(BlkioRoot, "blkio.throttle.write_iops_device")))
            throw new IopsCapUnavailableException($"this machine has no cgroup v1 blkio controller with throttling at {BlkioRoot} " +
                "(cgroup v2 only, or blkio not mounted): cannot cap write IOPS, so nothing was run");
        string device = DiskOf(directory);
        string returnTo = CurrentCgroup();
        string cgroup = Path.Combine(BlkioRoot, $"cairn-bench-{Environment.ProcessId}");
        try
        {
            Directory.CreateDirectory(cgroup);
            File.WriteAllText(Path.Combine(cgroup, "blkio.throttle.write_iops_device"), $"{device} {iops.ToString(CultureInfo.InvariantCulture)}");
            // cgroup v1: a process id written to cgroup.procs moves every thread of the process.
            File.WriteAllText(Path.Combine(cgroup, "cgroup.procs"), Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        }
        catch (Exception e) when (e is UnauthorizedAccessException or IOException)
        {
            TryRemove(cgroup);
            throw new IopsCapUnavailableException($"cannot make the blkio cgroup {cgroup} capping {device} at {iops} write IOPS " +
                $"({e.Message}; it takes root, or write access to {BlkioRoot}): nothing was run", e);
        }
        return new IopsCap(cgroup, returnTo, device, iops);
    }

    /// <summary>Block-layer write operations this cgroup has sent to the device so far (blkio.throttle.io_serviced).</summary>
    public long WriteOperations()
    {
        foreach (var line in File.ReadLines(Path.Combine(_cgroup, "blkio.throttle.io_serviced")))
        {
            var parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (parts.Length == 3 && parts[0] == Device && parts[1] == "Write")
                return long.Parse(parts[2], CultureInfo.InvariantCulture);
        }
        return 0;
    }

    /// <summary>
    /// The whole disk under the file system holding <paramref name="directory"/>, "major:minor": the mount with the
    /// longest mount point that contains it (/proc/self/mountinfo), and for a partition its disk (the throttle takes
    /// whole disks only).
    /// </summary>
    private static string DiskOf(string directory)
    {
        string full = Path.GetFullPath(directory);
        string? best = null;
        int bestLength = -1;
        foreach (var line in File.ReadLines("/proc/self/mountinfo"))
        {
            var fields = line.Split(' ');
            if (fields.Length < 5)
                continue;
            string mountPoint = fields[4].Replace("\\040", " ", StringComparison.Ordinal);
            bool contains = mountPoint == "/" || full == mountPoint || full.StartsWith(mountPoint + "/", StringComparison.Ordinal);
            if (contains && mountPoint.Length > bestLength)
            {
                best = fields[2];
                bestLength = mountPoint.Length;
            }
        }
        if (best is null)
            throw new IopsCapUnavailableException($"no mount in /proc/self/mountinfo holds {full}");
        string sysfs = Path.Combine("/sys/dev/block", best);
        if (!Directory.Exists(sysfs))
            throw new IopsCapUnavailableException($"{full} is on device {best}, which is not a block device (tmpfs, overlay?): no IOPS cap applies to it");
        if (File.Exists(Path.Combine(sysfs, "partition")))
        {
            // /sys/dev/block/M:m links to …/<disk>/<partition>: the disk's dev file is one level up.
            string disk = Path.GetFullPath(Path.Combine(new DirectoryInfo(sysfs).ResolveLinkTarget(true)?.FullName ?? sysfs, "..", "dev"));
            return File.ReadAllText(disk).Trim();
        }
        return best;
    }

    /// <summary>This process's blkio cgroup now (/proc/self/cgroup), to return to.</summary>
    private static string CurrentCgroup()
    {
        foreach (var line in File.ReadLines("/proc/self/cgroup"))
        {
            var parts = line.Split(':', 3);
            if (parts.Length == 3 && parts[1].Split(',').Contains("blkio"))
                return Path.Combine(BlkioRoot, parts[2].TrimStart('/'));
        }
        return BlkioRoot;
    }

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        Console.CancelKeyPress -= _onCancel;
        try
        {
            File.WriteAllText(Path.Combine(_returnTo, "cgroup.procs"), Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        }
        catch (IOException)
        {
            // The rmdir below then fails too, and says so.
        }
        if (!TryRemove(_cgroup))
            Console.Error.WriteLine($"# --iops-cap: could not remove the cgroup {_cgroup}; remove it with: rmdir {_cgroup}");
    }

    private static bool TryRemove(string cgroup)
    {
        try
        {
            if (Directory.Exists(cgroup))
                Directory.Delete(cgroup); // a cgroup's control files are not files: rmdir, never recursive
            return true;
        }
        catch (IOException)
        {
            return false;
        }
        catch (UnauthorizedAccessException)
        {
            return false;
        }
    }
}

/// <summary>An IOPS cap was asked for and cannot be had on this machine; the message says why.</summary>
internal sealed class IopsCapUnavailableException : Exception
{
    public IopsCapUnavailableException(string message)
        : base(message)
    {
    }

    public IopsCapUnavailableException(string message, Exception inner)
        : base(message, inner)
    {
    }
}
