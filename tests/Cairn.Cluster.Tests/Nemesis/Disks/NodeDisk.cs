using Cairn.Cluster.Tests.Nemesis.Schedule;
using Cairn.Tests.Support;

namespace Cairn.Cluster.Tests.Nemesis.Disks;

/// <summary>
/// A node's data folder on a small loop-mounted ext4 of its own, which the nemesis fills to the last block (a real
/// ENOSPC for the node's next allocation, as the engine's disk-full tests get) and frees again. Needs root and loop
/// devices: <see cref="TryCreate"/> returns null with the reason where the machine has neither, and fails instead
/// when CAIRN_TEST_REQUIRE_MOUNTS=1 (<see cref="LoopMountedFileSystem"/>).
/// </summary>
public sealed class NodeDisk : IDiskNemesis, IDisposable
{
    private const int Chunk = 1 << 20;

    // Guards the filler: the runner and a campaign's cleanup may both free it.
    private readonly Lock gate = new();
    private readonly LoopMountedFileSystem fs;
    private readonly string filler;

    private NodeDisk(LoopMountedFileSystem fs)
    {
        this.fs = fs;
        filler = Path.Combine(fs.MountPoint, "nemesis-filler");
        DataPath = Path.Combine(fs.MountPoint, "data");
        Directory.CreateDirectory(DataPath);
    }

    /// <summary>The node's data folder, on the small file system.</summary>
    public string DataPath { get; }

    public long FreeBytes => fs.FreeBytes;

    public bool IsFull { get; private set; }

    /// <summary>A <paramref name="megabytes"/> MiB file system mounted under <paramref name="directory"/>; null (with the reason) where this machine cannot mount one.</summary>
    public static NodeDisk? TryCreate(string directory, int megabytes, out string? reason)
    {
        var fs = LoopMountedFileSystem.TryCreate(directory, megabytes, out reason);
        return fs is null ? null : new NodeDisk(fs);
    }

    /// <summary>Writes a filler until the file system refuses another block, and syncs it so the space is taken for real.</summary>
    public void Fill()
    {
        lock (gate)
        {
            // Written, not sized: a sized file is sparse and takes no space. Unbuffered, so ENOSPC surfaces at the
            // write that meets it (ext4 reserves delayed-allocation blocks at write time), then smaller writes take
            // the last partial megabyte down to one block.
            using (var file = new FileStream(filler, FileMode.Append, FileAccess.Write, FileShare.None, bufferSize: 0))
            {
                foreach (int size in new[] { Chunk, 64 << 10, 4 << 10 })
                    WriteUntilFull(file, new byte[size]);
                file.Flush(flushToDisk: true);
            }
            IsFull = true;
        }
    }

    /// <summary>Deletes the filler and syncs the file system, so the space is there for the node's next allocation.</summary>
    public void Free()
    {
        lock (gate)
        {
            File.Delete(filler);
            using (var process = System.Diagnostics.Process.Start("sync", ["-f", fs.MountPoint]))
                process.WaitForExit();
            IsFull = false;
        }
    }

    public void Dispose() => fs.Dispose();

    private static void WriteUntilFull(FileStream file, byte[] chunk)
    {
        while (true)
        {
            try
            {
                file.Write(chunk);
            }
            catch (IOException e) when (IsDiskFull(e))
            {
                return;
            }
        }
    }

    // .NET on Linux raises ENOSPC as an IOException whose HResult is the errno (28); any other error propagates.
    private static bool IsDiskFull(IOException e) => e.HResult == 28;
}
