namespace Cairn.Tests.Support;

/// <summary>
/// A small loop-mounted ext4 (no blocks reserved) with a filler file taking part of it, and a folder for an
/// environment on it: a test fills the rest, deletes the filler to free space again, and sees what the engine does.
/// </summary>
public sealed class SmallFullDisk : IDisposable
{
    private readonly LoopMountedFileSystem _fs;
    private readonly string _filler;

    private SmallFullDisk(LoopMountedFileSystem fs, string filler)
    {
        _fs = fs;
        _filler = filler;
        EnvironmentPath = Path.Combine(fs.MountPoint, "env");
    }

    public string EnvironmentPath { get; }

    public long FreeBytes => _fs.FreeBytes;

    /// <summary>
    /// A <paramref name="megabytes"/> MiB ext4 of <paramref name="blockSize"/>-byte blocks with a filler of
    /// <paramref name="fillerMegabytes"/> MiB; null (with the reason) where this machine cannot mount one, which
    /// <see cref="LoopMountedFileSystem"/> turns into a failure when CAIRN_TEST_REQUIRE_MOUNTS=1.
    /// </summary>
    public static SmallFullDisk? TryCreate(string directory, int megabytes, int blockSize, int fillerMegabytes, out string? reason)
    {
        var fs = LoopMountedFileSystem.TryCreate(directory, megabytes, out reason, blockSize);
        if (fs is null)
            return null;
        // Written, not just sized: a sized file is sparse and takes no space.
        string filler = Path.Combine(fs.MountPoint, "filler");
        var chunk = new byte[1 << 20];
        using (var file = File.Create(filler))
        {
            for (int i = 0; i < fillerMegabytes; i++)
                file.Write(chunk);
            file.Flush(flushToDisk: true);
        }
        return new SmallFullDisk(fs, filler);
    }

    /// <summary>Deletes the filler and syncs the file system, so the space is there for the next allocation.</summary>
    public void FreeFiller()
    {
        File.Delete(_filler);
        using var process = System.Diagnostics.Process.Start("sync", ["-f", _fs.MountPoint]);
        process.WaitForExit();
    }

    /// <summary>A folder for another environment on the same disk (a branch: its journal links need the same file system).</summary>
    public string FolderFor(string name) => Path.Combine(_fs.MountPoint, name);

    /// <summary>Writes a file until the disk refuses more (synced, so nothing is left in delayed allocation); returns its path.</summary>
    public string FillTheRest()
    {
        string path = Path.Combine(_fs.MountPoint, "rest");
        var chunk = new byte[64 << 10];
        using var file = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.None, bufferSize: 0);
        for (int length = chunk.Length; length >= 512; length /= 2)
        {
            try
            {
                while (true)
                    file.Write(chunk, 0, length);
            }
            catch (IOException)
            {
                // ENOSPC at this length: go on with smaller writes until even 512 bytes find no room.
            }
        }
        try
        {
            file.Flush(flushToDisk: true);
        }
        catch (IOException)
        {
            // The sync itself may find nothing left for metadata: the disk is as full as it gets.
        }
        return path;
    }

    public void Dispose() => _fs.Dispose();
}
