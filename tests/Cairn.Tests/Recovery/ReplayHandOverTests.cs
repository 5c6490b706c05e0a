using Cairn.Journal;
using Cairn.Recovery;

namespace Cairn.Tests.Recovery;

/// <summary>
/// <see cref="ReplayHandOver"/> alone, between a test acting as the reading thread and one acting as the applying
/// thread: batches arrive in the order posted, the reader waits while the batches out hold the bound, a failure on
/// either side reaches the other, and disposal part-way frees every batch whoever holds it. No timing is asserted: a
/// wait that must end is given half a minute, and one that must not end is only observed not to have ended.
/// </summary>
public sealed class ReplayHandOverTests
{
    private const long Chunk = 64 * 1024;
    private static readonly TimeSpan s_ends = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan s_glance = TimeSpan.FromMilliseconds(50);

    [Fact]
    public async Task Batches_reach_the_applier_in_the_order_posted_and_then_the_end()
    {
        using var handOver = new ReplayHandOver(Chunk, 4 * Chunk);
        var applied = new List<long>();
        var applier = Task.Factory.StartNew(() =>
        {
            while (handOver.TakeFull() is { } batch)
            {
                applied.AddRange(batch.Entries.Select(e => e.Validation.Offset));
                handOver.Applied(batch);
            }
        }, TaskCreationOptions.LongRunning);

        for (long n = 0; n < 100; n++)
        {
            var batch = handOver.TakeFree(Chunk);
            AddMarker(batch, n * 2);
            AddMarker(batch, n * 2 + 1);
            handOver.Post(batch);
        }
        handOver.Complete();

        await applier.WaitAsync(s_ends);
        Assert.Equal(Enumerable.Range(0, 200).Select(i => (long)i), applied);
        Assert.Equal(0, handOver.OutBytes);
    }

    [Fact]
    public async Task The_reader_waits_while_the_batches_out_hold_the_bound_and_goes_on_when_one_is_applied()
    {
        using var handOver = new ReplayHandOver(Chunk, 2 * Chunk);
        var first = handOver.TakeFree(Chunk);
        AddMarker(first, 0);
        handOver.Post(first);
        var second = handOver.TakeFree(Chunk);
        Assert.Equal(2 * Chunk, handOver.OutBytes);

        var third = Task.Factory.StartNew(() => handOver.TakeFree(Chunk), TaskCreationOptions.LongRunning);
        await StillWaiting(third); // two chunks out: no room for a third
        var taken = handOver.TakeFull();
        Assert.Same(first, taken);
        handOver.Applied(taken!);

        var thirdBatch = await third.WaitAsync(s_ends);
        Assert.Equal(2 * Chunk, handOver.OutBytes);
        Assert.Same(first, thirdBatch); // the applied batch's buffer is reused, not a new one
        handOver.Return(second);
        handOver.Return(thirdBatch);
        Assert.Equal(0, handOver.OutBytes);
    }

    [Fact]
    public async Task An_entry_larger_than_the_bound_gets_a_batch_of_its_own_once_nothing_else_is_out_and_it_is_freed_after()
    {
        using var handOver = new ReplayHandOver(Chunk, 2 * Chunk);
        var small = handOver.TakeFree(Chunk);
        var large = Task.Factory.StartNew(() => handOver.TakeFree(5 * Chunk), TaskCreationOptions.LongRunning);
        await StillWaiting(large);

        handOver.Return(small);

        var largeBatch = await large.WaitAsync(s_ends);
        Assert.True(largeBatch.Buffer.Capacity >= 5 * Chunk);
        handOver.Return(largeBatch);
        Assert.Equal(0, handOver.OutBytes);
        Assert.True(IsFreed(largeBatch)); // not pooled: a chunk is what the pool keeps
    }

    [Fact]
    public async Task The_applier_s_failure_reaches_the_reader_waiting_for_room_and_at_each_later_call()
    {
        var handOver = new ReplayHandOver(Chunk, Chunk);
        var batch = handOver.TakeFree(Chunk);
        AddMarker(batch, 0);
        handOver.Post(batch);
        var waiting = Task.Factory.StartNew(() => handOver.TakeFree(Chunk), TaskCreationOptions.LongRunning);
        await StillWaiting(waiting);
        var failure = new JournalCorruptionException("journal", 4096, 7, "a test's failure");

        var taken = handOver.TakeFull()!;
        handOver.Fail(failure);
        handOver.Applied(taken);

        Assert.Same(failure, await Assert.ThrowsAsync<JournalCorruptionException>(() => waiting.WaitAsync(s_ends)));
        Assert.Same(failure, Assert.Throws<JournalCorruptionException>(() => handOver.TakeFree(Chunk)));
        var another = new ReplayBatch(Chunk);
        Assert.Same(failure, Assert.Throws<JournalCorruptionException>(() => handOver.Post(another)));
        handOver.Dispose();
        Assert.True(IsFreed(another)); // a batch refused is kept for disposal, not leaked
        Assert.True(IsFreed(batch));
    }

    [Fact]
    public async Task Completion_ends_the_applier_s_wait_after_the_queued_batches_and_cancellation_ends_it_at_once()
    {
        using (var handOver = new ReplayHandOver(Chunk, 4 * Chunk))
        {
            var waiting = Task.Factory.StartNew(() => handOver.TakeFull(), TaskCreationOptions.LongRunning);
            await StillWaiting(waiting);
            var batch = handOver.TakeFree(Chunk);
            AddMarker(batch, 0);
            handOver.Post(batch);
            handOver.Complete();
            Assert.Same(batch, await waiting.WaitAsync(s_ends));
            Assert.Null(handOver.TakeFull());
            handOver.Applied(batch);
        }
        using (var handOver = new ReplayHandOver(Chunk, 4 * Chunk))
        {
            var queued = handOver.TakeFree(Chunk);
            AddMarker(queued, 0);
            handOver.Post(queued);
            handOver.Cancel();
            Assert.Null(handOver.TakeFull()); // the queued batch is dropped, not applied
            Assert.Throws<OperationCanceledException>(() => handOver.TakeFree(Chunk));
        }
    }

    [Fact]
    public async Task Disposal_part_way_frees_queued_and_pooled_batches_wakes_a_waiter_and_frees_one_handed_back_later()
    {
        var handOver = new ReplayHandOver(Chunk, 3 * Chunk);
        var pooled = handOver.TakeFree(Chunk);
        handOver.Return(pooled);
        var queued = handOver.TakeFree(Chunk);
        Assert.Same(pooled, queued);
        AddMarker(queued, 0);
        handOver.Post(queued);
        var held = handOver.TakeFree(Chunk); // with the reader
        var applying = handOver.TakeFull()!; // with the applier
        Assert.Same(queued, applying);
        var queuedToo = handOver.TakeFree(Chunk);
        AddMarker(queuedToo, 1);
        handOver.Post(queuedToo);
        var waiting = Task.Factory.StartNew(() => handOver.TakeFree(Chunk), TaskCreationOptions.LongRunning);
        await StillWaiting(waiting);

        handOver.Dispose();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => waiting.WaitAsync(s_ends));
        Assert.True(IsFreed(queuedToo)); // queued: freed by the disposal
        Assert.False(IsFreed(held)); // still the reader's
        Assert.False(IsFreed(applying!)); // still the applier's
        handOver.Applied(applying!);
        Assert.Throws<ObjectDisposedException>(() => handOver.Post(held));
        Assert.True(IsFreed(applying));
        Assert.True(IsFreed(held));
        Assert.Throws<ObjectDisposedException>(() => handOver.TakeFull());
        Assert.Equal(0, handOver.OutBytes);
        handOver.Dispose(); // twice is harmless
    }

    /// <summary>Lets the task run a moment: it must still be waiting (a wrong early end shows, a slow machine cannot fail it).</summary>
    private static async Task StillWaiting(Task task)
    {
        await Task.WhenAny(task, Task.Delay(s_glance));
        Assert.False(task.IsCompleted, $"ended early: {task.Status} {task.Exception?.InnerException?.Message}");
    }

    private static unsafe bool IsFreed(ReplayBatch batch)
    {
        try
        {
            _ = (nint)batch.Buffer.Pointer;
            return false;
        }
        catch (ObjectDisposedException)
        {
            return true;
        }
    }

    /// <summary>A made-up entry at the batch's start whose offset in the journal numbers it (only the order is looked at).</summary>
    private static unsafe void AddMarker(ReplayBatch batch, long number)
    {
        var validation = JournalEntryValidation.Valid(number, new JournalEntryHeader(), JournalEntryHeader.Alignment);
        batch.Add("journal", batch.Buffer.Pointer, validation);
    }
}
