using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// What a journal group counts of its writes for the bench (how many of them it really keeps on the device, beside the
/// limit it allows): each write sent, with the number of the group's writes on the device as it started, itself included.
/// </summary>
public sealed class JournalGroupWritesSentTests
{
    [Fact]
    public async Task A_write_sent_beside_a_held_one_counts_two_on_the_device_and_one_sent_alone_counts_one()
    {
        using var dir = new TestDirectory("group-writes-sent");
        using var group = new JournalGroupHarness(dir.Path, branches: 1, maxWritesInFlight: 2);
        Assert.Equal((0L, 0L), group.Group.WritesSent);

        JournalGroupHarness.Commit(group.Root, 1);
        Assert.Equal((1L, 1L), group.Group.WritesSent);

        using (var held = HeldFirstWrite.Hold(group.Group))
        {
            var holder = Task.Run(() => JournalGroupHarness.Commit(group.Root, 2));
            Assert.True(held.Started.Wait(TimeSpan.FromMinutes(1)));
            // The branch's commit finds one writer at work and a limit of two: it writes at once, beside the held write.
            await Task.Run(() => JournalGroupHarness.Commit(group.Branch(0), 1)).WaitAsync(TimeSpan.FromMinutes(1));
            held.Release.Set();
            await holder.WaitAsync(TimeSpan.FromMinutes(1));
            lock (held.Batches)
                Assert.Equal([1, 1], held.Batches);
        }

        Assert.Equal((3L, 1L + 1L + 2L), group.Group.WritesSent);
    }
}
