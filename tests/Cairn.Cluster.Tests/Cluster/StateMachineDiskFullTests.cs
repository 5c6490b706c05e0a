using System.Buffers;
using Cairn.Cluster.Commands;
using Cairn.Cluster.StateMachine;
using Cairn.Cluster.Tests.Nemesis.Disks;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>The state machine on a real full disk (a loop-mounted ext4, as the nemesis fills a node's).</summary>
public sealed class StateMachineDiskFullTests(ITestOutputHelper output)
{
    [Fact]
    public async Task An_entry_applied_on_a_full_disk_fails_alone_and_applies_once_the_disk_is_freed()
    {
        using var dir = new TestDirectory("cluster-sm-disk-full");
        using var disk = NodeDisk.TryCreate(dir.Path, 16, out var reason);
        if (disk is null)
        {
            output.WriteLine($"NOT RUN: a full disk needs a loop mount, which failed here ({reason}).");
            return;
        }

        // Journals small for the 16 MiB disk, so the close after the disk is freed has room to flush.
        using var environment = StorageEnvironment.Open(new StorageOptions(disk.DataPath)
        {
            InitialJournalFileBytes = 256 << 10,
            MaxJournalFileBytes = 1 << 20,
        });
        var machine = new CairnStateMachine(environment);
        var client = Guid.NewGuid();
        Assert.Equal(ApplyStatus.Applied, (await machine.ApplyAsync(1, Payload(client, 1, [1]), null, default)).Status);

        disk.Fill();
        // Larger than the journal file's free room, so the commit must open a new journal on a disk with no space left.
        var big = new byte[768 << 10];
        new Random(28).NextBytes(big);
        var full = await Assert.ThrowsAsync<DiskFullException>(async () => await machine.ApplyAsync(2, Payload(client, 2, big), null, default));
        output.WriteLine(full.Message);
        Assert.False(environment.HasFailed);
        Assert.Equal(1, machine.AppliedIndex); // nothing of entry 2 is applied while the disk is full
        using (var read = environment.BeginRead())
            Assert.Equal([1], read.OpenTree("t").Get("k"u8));
        disk.Free();

        Assert.Equal(new ApplyOutcome(ApplyStatus.Applied, 2), await machine.ApplyAsync(2, Payload(client, 2, big), null, default));
        Assert.Equal(2, machine.AppliedIndex);
        using (var read = environment.BeginRead())
            Assert.Equal(big, read.OpenTree("t").Get("k"u8));
        environment.Verify();
    }

    private static ReadOnlySequence<byte> Payload(Guid client, long sequence, byte[] value)
        => new(CommandCodec.Encode(new ClusterCommand(new OperationId(client, sequence), "t", [ClusterOperation.Put("k"u8.ToArray(), value)])));
}
