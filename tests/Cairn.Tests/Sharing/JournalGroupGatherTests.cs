using System.Diagnostics;
using Cairn.Journal.Sharing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// The gather inside a journal group: at one write in flight the next write waits for the member the last write
/// released and carries it; at two in flight it never waits, not even beside a write still on the device. The gather is
/// given a smoothed write time of minutes, so a wait that should not happen shows as a test that times out, not as a
/// timing that a loaded machine could blur.
/// </summary>
public sealed class JournalGroupGatherTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromMinutes(1);

    // A gather whose bound is minutes: the group's real writes (microseconds) move the smoothed time by an eighth each.
    private static WriteGather SlowWrites()
    {
        long minutes = Stopwatch.Frequency * 60 * 10;
        var gather = new WriteGather(maxWaitTicks: minutes);
        gather.Settled(now: 0, writeTicks: minutes, released: 0, gather: false);
        return gather;
    }

    [Fact]
    public async Task At_one_in_flight_the_next_write_waits_for_the_member_the_last_one_released_and_carries_it()
    {
        using var dir = new TestDirectory("group-gather-one");
        using var group = new JournalGroupHarness(dir.Path, branches: 1, maxWritesInFlight: 1, gather: SlowWrites());
        var batches = new List<int>();
        group.Group.ForTestingPurposesOnly().WriteStarting = requests =>
        {
            lock (batches)
                batches.Add(requests);
        };

        JournalGroupHarness.Commit(group.Branch(0), 1); // write 1 releases the branch
        var root = Task.Run(() => JournalGroupHarness.Commit(group.Root, 1));
        // The root's request is queued and the root is the writer: its write waits for the branch.
        await WaitUntil(() => group.Group.PendingCount == 1);
        Assert.False(root.IsCompleted);
        await Task.Run(() => JournalGroupHarness.Commit(group.Branch(0), 2)).WaitAsync(Patience);
        await root.WaitAsync(Patience);

        lock (batches)
            Assert.Equal([1, 2], batches); // without the wait the root would have written alone: [1, 1, 1]
        var (released, returned, _) = group.Group.Cohorts;
        Assert.Equal((1L, 1L), (released, returned));
    }

    [Fact]
    public async Task At_two_in_flight_the_next_write_never_waits_for_released_members_even_beside_a_write_on_the_device()
    {
        using var dir = new TestDirectory("group-gather-two");
        using var group = new JournalGroupHarness(dir.Path, branches: 1, maxWritesInFlight: 2, gather: SlowWrites());

        JournalGroupHarness.Commit(group.Branch(0), 1); // write 1 releases the branch, which stays away
        using (var held = HeldFirstWrite.Hold(group.Group))
        {
            // Gathering, the root's write would wait minutes for the branch before reaching the device.
            var root = Task.Run(() => JournalGroupHarness.Commit(group.Root, 1));
            Assert.True(held.Started.Wait(Patience), "the root's write waited for a released member at two in flight");
            // The branch writes beside the held write, without waiting for the root it never carried.
            await Task.Run(() => JournalGroupHarness.Commit(group.Branch(0), 2)).WaitAsync(Patience);
            held.Release.Set();
            await root.WaitAsync(Patience);
            lock (held.Batches)
                Assert.Equal([1, 1], held.Batches);
        }

        Assert.Equal((1L, 0L, 0L), group.Group.Cohorts); // the branch was not back for the root's write, and nothing waited
    }

    private static async Task WaitUntil(Func<bool> condition)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            Assert.True(clock.Elapsed < Patience, "the condition never held");
            await Task.Delay(1);
        }
    }
}
