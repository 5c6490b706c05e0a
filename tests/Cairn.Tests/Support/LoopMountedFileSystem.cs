using System.Diagnostics;

namespace Cairn.Tests.Support;

/// <summary>
/// A small ext4 file system in an image file, mounted through a loop device inside a test directory,
/// so a test can run out of disk space for real. Needs root and loop devices (this machine kind has
/// both; scripts/test.sh sets CAIRN_TEST_REQUIRE_MOUNTS=1 when it finds them, which turns a failed mount
/// into a failed test instead of a reported omission).
/// </summary>
public sealed class LoopMountedFileSystem : IDisposable
{
    private LoopMountedFileSystem(string image, string mountPoint)
    {
        ImagePath = image;
        MountPoint = mountPoint;
    }

    public string ImagePath { get; }

    public string MountPoint { get; }

    public static bool Required => System.Environment.GetEnvironmentVariable("CAIRN_TEST_REQUIRE_MOUNTS") == "1";

    /// <summary>
    /// Creates and mounts an ext4 image of <paramref name="megabytes"/> MiB with <paramref name="blockSize"/>-byte
    /// blocks and no blocks reserved for root (so a root test process fills it like any user would); null (with
    /// the reason) when this machine cannot.
    /// </summary>
    public static LoopMountedFileSystem? TryCreate(string directory, int megabytes, out string? reason, int blockSize = 4096)
    {
        string image = Path.Combine(directory, "fs.img");
        string mountPoint = Path.Combine(directory, "mnt");
        Directory.CreateDirectory(mountPoint);
        using (var file = File.Create(image))
            file.SetLength((long)megabytes << 20);
        reason = Run("mkfs.ext4", "-q", "-F", "-m", "0", "-b", blockSize.ToString(System.Globalization.CultureInfo.InvariantCulture), image) ?? Run("mount", "-o", "loop", image, mountPoint);
        if (reason is not null)
        {
            if (Required)
                throw new InvalidOperationException($"CAIRN_TEST_REQUIRE_MOUNTS=1 but the loop mount failed: {reason}");
            return null;
        }
        return new LoopMountedFileSystem(image, mountPoint);
    }

    public long FreeBytes => new DriveInfo(MountPoint).AvailableFreeSpace;

    public void Dispose()
    {
        if (Run("umount", MountPoint) is not null)
            Run("umount", "-l", MountPoint);
    }

    /// <summary>Runs a command; null on success, else what went wrong.</summary>
    private static string? Run(string command, params string[] arguments)
    {
        var start = new ProcessStartInfo(command) { RedirectStandardError = true, RedirectStandardOutput = true };
        foreach (var argument in arguments)
            start.ArgumentList.Add(argument);
        try
        {
            using var process = Process.Start(start)!;
            string error = process.StandardError.ReadToEnd();
            process.StandardOutput.ReadToEnd();
            process.WaitForExit();
            return process.ExitCode == 0 ? null : $"{command} {string.Join(' ', arguments)} exited with {process.ExitCode}: {error.Trim()}";
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            return $"{command} could not start: {e.Message}";
        }
    }
}
