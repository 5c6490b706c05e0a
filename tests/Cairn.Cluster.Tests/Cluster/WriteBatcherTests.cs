using Cairn.Cluster.Commands;
using Cairn.Cluster.Node;
using Cairn.Cluster.StateMachine;
using Cairn.Cluster.Tests.Nemesis;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>
/// The leader's batching alone, over a stand-in for Raft that holds each entry until the test releases it, so which
/// commands share an entry is decided by the test, not by timing.
/// </summary>
public sealed class WriteBatcherTests
{
    [Fact]
    public async Task Commands_that_arrive_while_an_entry_is_replicated_go_together_in_the_next()
    {
        var raft = new HeldRaft();
        var batcher = new WriteBatcher(maxCommands: 100, maxBytes: 1 << 20, raft.ReplicateAsync);
        var first = batcher.SubmitAsync(Command(1));
        var queued = Enumerable.Range(2, 5).Select(i => batcher.SubmitAsync(Command(i))).ToArray();
        Assert.Equal([1], raft.EntrySizes); // the first went at once, alone

        raft.Release();
        Assert.Equal(new ApplyOutcome(ApplyStatus.Applied, 1), await first.WaitAsync(Eventually.HangDeadline));
        await raft.SentAsync(2);
        Assert.Equal([1, 5], raft.EntrySizes);
        raft.Release();
        foreach (var write in queued)
            Assert.Equal(new ApplyOutcome(ApplyStatus.Applied, 2), await write.WaitAsync(Eventually.HangDeadline));
        Assert.Equal((2L, 6L), (batcher.Entries, batcher.Commands));
    }

    [Fact]
    public async Task Writers_whose_entry_completed_ride_the_next_entry_with_the_commands_queued_during_its_round()
    {
        // A wait longer than any of the test's own: the next entry goes when the first entry's writer is back, not by time.
        var raft = new HeldRaft();
        var batcher = new WriteBatcher(maxCommands: 100, maxBytes: 1 << 20, raft.ReplicateAsync, rejoinWait: TimeSpan.FromMinutes(10));
        var first = batcher.SubmitAsync(Command(1));
        await raft.SentAsync(1);
        var queued = Enumerable.Range(2, 4).Select(i => batcher.SubmitAsync(Command(i))).ToArray();
        raft.Release();
        await first.WaitAsync(Eventually.HangDeadline);
        Assert.Equal([1], raft.EntrySizes); // four queued, one writer back to come: the entry waits for it
        var again = batcher.SubmitAsync(Command(6));
        await raft.SentAsync(2);
        Assert.Equal([1, 5], raft.EntrySizes);
        raft.Release();
        foreach (var write in queued.Append(again))
            Assert.Equal(new ApplyOutcome(ApplyStatus.Applied, 2), await write.WaitAsync(Eventually.HangDeadline));

    }

    [Fact]
    public async Task A_lone_writers_next_command_goes_without_the_rejoin_wait()
    {
        var raft = new HeldRaft();
        var batcher = new WriteBatcher(maxCommands: 100, maxBytes: 1 << 20, raft.ReplicateAsync, rejoinWait: TimeSpan.FromMinutes(10));
        for (var i = 1; i <= 3; i++)
        {
            var write = batcher.SubmitAsync(Command(i));
            await raft.SentAsync(i); // within the test's deadline, far below the 10 minutes a wait would take
            raft.Release();
            Assert.Equal(new ApplyOutcome(ApplyStatus.Applied, i), await write.WaitAsync(Eventually.HangDeadline));
        }

        Assert.Equal([1, 1, 1], raft.EntrySizes);
    }

    [Fact]
    public async Task Commands_queued_behind_writers_that_do_not_come_back_go_once_the_wait_passes()
    {
        var raft = new HeldRaft();
        var batcher = new WriteBatcher(maxCommands: 100, maxBytes: 1 << 20, raft.ReplicateAsync, rejoinWait: TimeSpan.FromMilliseconds(20));
        var first = batcher.SubmitAsync(Command(1));
        await raft.SentAsync(1);
        var queued = Enumerable.Range(2, 3).Select(i => batcher.SubmitAsync(Command(i))).ToArray();
        raft.Release();
        await first.WaitAsync(Eventually.HangDeadline);
        await raft.SentAsync(2); // nobody else comes: the queued three go after the wait
        Assert.Equal([1, 3], raft.EntrySizes);
        raft.Release();
        await Task.WhenAll(queued).WaitAsync(Eventually.HangDeadline);
    }

    [Fact]
    public async Task An_entry_holds_at_most_the_count_and_the_bytes_allowed_but_a_larger_command_goes_alone()
    {
        var raft = new HeldRaft();
        var commandBytes = CommandCodec.BodySize(Command(1));
        var batcher = new WriteBatcher(maxCommands: 3, maxBytes: 2 * commandBytes, raft.ReplicateAsync);
        var writes = new List<Task<ApplyOutcome>> { batcher.SubmitAsync(Command(1)) };
        writes.AddRange(Enumerable.Range(2, 4).Select(i => batcher.SubmitAsync(Command(i))));
        writes.Add(batcher.SubmitAsync(Command(6, valueBytes: 3 * commandBytes)));
        writes.Add(batcher.SubmitAsync(Command(7)));
        for (var entry = 1; entry <= 5; entry++)
        {
            await raft.SentAsync(entry);
            raft.Release();
        }

        await Task.WhenAll(writes).WaitAsync(Eventually.HangDeadline);
        Assert.Equal([1, 2, 2, 1, 1], raft.EntrySizes);

        var byCount = new HeldRaft();
        var counted = new WriteBatcher(maxCommands: 3, maxBytes: 1 << 20, byCount.ReplicateAsync);
        var more = Enumerable.Range(1, 5).Select(i => counted.SubmitAsync(Command(i))).ToArray();
        for (var entry = 1; entry <= 3; entry++)
        {
            await byCount.SentAsync(entry);
            byCount.Release();
        }

        await Task.WhenAll(more).WaitAsync(Eventually.HangDeadline);
        Assert.Equal([1, 3, 1], byCount.EntrySizes);
    }

    [Fact]
    public async Task An_entry_that_fails_fails_its_own_writers_only_and_the_queue_goes_on()
    {
        var raft = new HeldRaft { FailEntry = 2 };
        var batcher = new WriteBatcher(maxCommands: 2, maxBytes: 1 << 20, raft.ReplicateAsync);
        var writes = Enumerable.Range(1, 5).Select(i => batcher.SubmitAsync(Command(i))).ToArray();
        for (var entry = 1; entry <= 3; entry++)
        {
            await raft.SentAsync(entry);
            raft.Release();
        }

        Assert.Equal(ApplyStatus.Applied, (await writes[0].WaitAsync(Eventually.HangDeadline)).Status);
        Assert.IsType<NotClusterLeaderException>(await Record.ExceptionAsync(() => writes[1].WaitAsync(Eventually.HangDeadline)));
        Assert.IsType<NotClusterLeaderException>(await Record.ExceptionAsync(() => writes[2].WaitAsync(Eventually.HangDeadline)));
        Assert.Equal(new ApplyOutcome(ApplyStatus.Applied, 3), await writes[3].WaitAsync(Eventually.HangDeadline));
        Assert.Equal(new ApplyOutcome(ApplyStatus.Applied, 3), await writes[4].WaitAsync(Eventually.HangDeadline));
    }

    [Fact]
    public async Task An_entry_Raft_returned_for_without_this_waiters_apply_is_reported_replaced()
    {
        var raft = new HeldRaft { ApplyOther = true };
        var batcher = new WriteBatcher(maxCommands: 10, maxBytes: 1 << 20, raft.ReplicateAsync);
        var write = batcher.SubmitAsync(Command(1));
        raft.Release();
        Assert.Equal(ApplyStatus.Replaced, (await write.WaitAsync(Eventually.HangDeadline)).Status);
    }

    private static ClusterCommand Command(int i, int valueBytes = 10)
        => new(new OperationId(Guid.NewGuid(), 1), "t", [ClusterOperation.Put(BitConverter.GetBytes(i), new byte[valueBytes])]);

    // Each await of a write or an entry ends at the hang deadline, so a batcher that sends other entries than these
    // tests expect fails them instead of leaving a write waiting for a release that never comes.

    /// <summary>Raft as the batcher sees it: records each entry's commands, and holds it until released.</summary>
    private sealed class HeldRaft
    {
        private readonly SemaphoreSlim released = new(0);
        private readonly List<int> entrySizes = [];

        public int FailEntry { get; init; } = -1;

        public bool ApplyOther { get; init; }

        public int[] EntrySizes
        {
            get
            {
                lock (entrySizes)
                    return entrySizes.ToArray();
            }
        }

        public void Release() => released.Release();

        public Task SentAsync(int entries) => Eventually.HoldsAsync(() => EntrySizes.Length >= entries, () => $"{EntrySizes.Length} entries sent");

        public async Task ReplicateAsync(ReadOnlyMemory<byte> entry, ApplyWaiter waiter)
        {
            var commands = EntryCodec.Decode(entry.Span, 0);
            int index;
            lock (entrySizes)
            {
                entrySizes.Add(commands.Length);
                index = entrySizes.Count;
            }

            await released.WaitAsync();
            if (index == FailEntry)
                throw new NotClusterLeaderException(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 1), null);
            if (!ApplyOther)
                waiter.Complete(new EntryOutcome(ApplyStatus.Applied, commands.Select(c => new CommandOutcome(c.Id, new ApplyOutcome(ApplyStatus.Applied, index))).ToArray()));
        }
    }
}
