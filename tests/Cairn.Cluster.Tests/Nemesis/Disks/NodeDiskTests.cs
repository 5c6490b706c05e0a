using Cairn.Cluster.Tests.Nemesis.Processes;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Cluster.Tests.Nemesis.Disks;

/// <summary>
/// The disk-full nemesis on a real loop-mounted file system. Where the machine cannot mount one (not root, no loop
/// devices) each test says NOT RUN with the reason, as the engine's real disk-full tests do, and fails instead under
/// CAIRN_TEST_REQUIRE_MOUNTS=1 (scripts/test.sh sets it where mounts work).
/// </summary>
public sealed class NodeDiskTests(ITestOutputHelper output)
{
    private const int Megabytes = 16;

    [Fact]
    public void Fill_leaves_no_room_for_a_new_block_and_free_gives_it_back()
    {
        using var dir = new TestDirectory("nemesis-disk");
        using var disk = Disk(dir);
        if (disk is null)
            return;
        File.WriteAllBytes(Path.Combine(disk.DataPath, "before"), new byte[64 << 10]);

        disk.Fill();

        Assert.True(disk.IsFull);
        Assert.True(disk.FreeBytes < 4096, $"{disk.FreeBytes} bytes still free after the fill");
        var refused = Assert.ThrowsAny<IOException>(() => WriteSynced(Path.Combine(disk.DataPath, "during"), 64 << 10));
        Assert.Equal(28, refused.HResult); // ENOSPC, the error a node's next allocation meets
        Assert.Equal(64 << 10, new FileInfo(Path.Combine(disk.DataPath, "before")).Length);

        disk.Free();

        Assert.False(disk.IsFull);
        Assert.True(disk.FreeBytes > (Megabytes / 2) << 20, $"only {disk.FreeBytes} bytes free after the filler went");
        WriteSynced(Path.Combine(disk.DataPath, "after"), 64 << 10);
    }

    [Fact]
    public async Task A_node_writing_to_its_disk_is_refused_while_full_and_goes_on_once_freed()
    {
        using var dir = new TestDirectory("nemesis-disk-node");
        using var disk = Disk(dir);
        if (disk is null)
            return;
        // Each step writes and syncs a block of its own (an append to a part-filled block needs no new one, and would
        // not meet the full disk); a refused write is reported on stderr and the loop carries on, as a node would retry.
        var command = NodeCommand.Bash(
            "i=0; while true; do i=$((i+1)); dd if=/dev/zero of=block.$i bs=4096 count=1 oflag=dsync status=none || echo \"refused $i\" >&2; sleep 0.005; done",
            disk.DataPath);
        await using var node = await NodeProcess.StartAsync("node", command, dir.Path);
        await Eventually.HoldsAsync(() => BlocksWritten(disk) >= 3, () => "the node to write");

        disk.Fill();
        await Eventually.HoldsAsync(() => File.ReadAllText(node.ErrorPath).Contains("No space left", StringComparison.Ordinal), () => $"the node to meet ENOSPC: {node.OutputTail()}");
        disk.Free();
        int afterFree = BlocksWritten(disk);
        await Eventually.HoldsAsync(() => BlocksWritten(disk) > afterFree + 3, () => $"the node to write again: {node.OutputTail()}");
        node.ThrowIfExited();
    }

    private NodeDisk? Disk(TestDirectory dir)
    {
        var disk = NodeDisk.TryCreate(dir.Path, Megabytes, out string? reason);
        if (disk is null)
            output.WriteLine($"NOT RUN: the disk-full nemesis needs a loop mount, which failed here ({reason}).");
        return disk;
    }

    private static int BlocksWritten(NodeDisk disk)
        => new DirectoryInfo(disk.DataPath).EnumerateFiles("block.*").Count(file => file.Length == 4096);

    private static void WriteSynced(string path, int bytes)
    {
        using var file = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.None, bufferSize: 0);
        file.Write(new byte[bytes]);
        file.Flush(flushToDisk: true);
    }
}
