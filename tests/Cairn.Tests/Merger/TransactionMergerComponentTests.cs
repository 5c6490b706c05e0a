using static Cairn.Tests.Merger.MergerHarness;

namespace Cairn.Tests.Merger;

/// <summary>
/// The transaction merger on its own, over a fake pipeline that records every stage: ordering and
/// release after publication, a throwing operation, a failed journal write, an empty prepare,
/// back-pressure, stop, and scratch pressure. Every wait is on a signal (the write gate, an operation's
/// first execution, a caller's task); the timeouts only guard against a hang.
/// </summary>
public sealed class TransactionMergerComponentTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Concurrent_callers_are_each_published_once_in_transaction_order_before_their_tasks_complete(bool writeOnMergerWhenIdle)
    {
        await using var harness = new MergerHarness(writeOnMergerWhenIdle: writeOnMergerWhenIdle);
        const int callers = 8, perCaller = 100;
        var callerTasks = Enumerable.Range(0, callers).Select(c => Task.Run(async () =>
        {
            for (int i = 0; i < perCaller; i++)
            {
                int value = c * perCaller + i;
                var operation = harness.Enqueue(RecordingOperation.Applying(value));
                await operation.Completion;
                // Released means published: the journal writer publishes, then completes the callers.
                Assert.True(harness.Pipeline.IsPublished(value), $"value {value} was released before it was published");
                Assert.Equal(1, operation.Executions);
            }
        })).ToArray();
        await Task.WhenAll(callerTasks).WaitAsync(HangGuard);

        var published = harness.Pipeline.Published;
        // One publication per transaction id, in id order, with no gap.
        Assert.Equal(Enumerable.Range(1, published.Count).Select(i => (long)i), published.Select(p => p.TransactionId));
        var values = published.SelectMany(p => p.Values).ToList();
        Assert.Equal(Enumerable.Range(0, callers * perCaller), values.Order());
        // Each caller waited for each operation before sending the next, so its values were published in its order.
        for (int c = 0; c < callers; c++)
        {
            var own = values.Where(v => v / perCaller == c).ToList();
            Assert.Equal(own.Order(), own);
        }

        await harness.StopAsync().WaitAsync(HangGuard);
        Assert.Equal(harness.Pipeline.WritesEntered, harness.Pipeline.WritesLeft);
    }

    [Fact]
    public async Task The_next_transaction_opens_on_top_of_the_one_in_flight_and_is_rebased_once_that_is_published()
    {
        await using var harness = new MergerHarness();
        var pipeline = harness.Pipeline;
        var first = await harness.EnqueueWithWriteHeld(RecordingOperation.Applying(1));
        var second = harness.Enqueue(RecordingOperation.Applying(2));
        await second.Executed.WaitAsync(HangGuard);
        // Transaction 1 is held in its write: nobody is released yet.
        Assert.False(first.Completion.IsCompleted);
        Assert.False(second.Completion.IsCompleted);

        pipeline.Writes.Open();
        await Task.WhenAll(first.Completion, second.Completion).WaitAsync(HangGuard);

        Assert.Equal("1:1 2:2", pipeline.PublishedSummary);
        var events = pipeline.Events;
        int firstSlot = events.Single(e => e.Step == MergerStep.Publish && e.TransactionId == 1).Slot;
        int secondSlot = events.Single(e => e.Step == MergerStep.Publish && e.TransactionId == 2).Slot;
        Assert.NotEqual(firstSlot, secondSlot);
        int opened = events.IndexOf(new MergerEvent(MergerStep.OpenOnTopOf, secondSlot, 1));
        int published = events.IndexOf(new MergerEvent(MergerStep.Publish, firstSlot, 1));
        int rebased = events.IndexOf(new MergerEvent(MergerStep.Rebase, secondSlot, 1));
        int prepared = events.IndexOf(new MergerEvent(MergerStep.Prepare, secondSlot, 2));
        Assert.True(opened >= 0 && opened < published, "the second transaction did not open on top of the first while it was in flight");
        Assert.True(published < rebased && rebased < prepared, "the second transaction was not rebased between the first's publication and its own prepare");
    }

    [Fact]
    public async Task An_operation_that_throws_fails_alone_and_the_rest_of_its_batch_runs_again_and_commits()
    {
        await using var harness = new MergerHarness();
        var pipeline = harness.Pipeline;
        var first = await harness.EnqueueWithWriteHeld(RecordingOperation.Applying(1));
        // Transaction 1 is in flight, so these three run in transaction 2, the throwing one last.
        var error = new InvalidOperationException("operation failed on purpose");
        var before = harness.Enqueue(RecordingOperation.Applying(2));
        var alongside = harness.Enqueue(RecordingOperation.Applying(3));
        var throwing = harness.Enqueue(RecordingOperation.Throwing(4, error));

        // It fails at once, while its batch is still open: its caller does not wait for the others.
        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => throwing.Completion.WaitAsync(HangGuard));
        Assert.Same(error, thrown);
        Assert.False(before.Completion.IsCompleted);

        pipeline.Writes.Open();
        await Task.WhenAll(first.Completion, before.Completion, alongside.Completion).WaitAsync(HangGuard);

        // Its partial change (4) is gone; the other two ran again in the restarted transaction and committed.
        Assert.Equal("1:1 2:2,3", pipeline.PublishedSummary);
        Assert.Equal(2, before.Executions);
        Assert.Equal(2, alongside.Executions);
        Assert.Equal(1, throwing.Executions);
        int secondSlot = pipeline.Events.Single(e => e.Step == MergerStep.Publish && e.TransactionId == 2).Slot;
        Assert.Single(pipeline.Events, e => e.Step == MergerStep.Restart && e.Slot == secondSlot);
    }

    [Fact]
    public async Task A_failed_journal_write_fails_its_batch_and_every_queued_caller_and_every_later_one()
    {
        // Two values per transaction: while one write is in flight the next batch fills and the rest stay queued.
        await using var harness = new MergerHarness(maxTransactionPages: 2);
        var pipeline = harness.Pipeline;
        var durable = harness.Enqueue(RecordingOperation.Applying(0));
        await durable.Completion.WaitAsync(HangGuard);

        var diskGone = new IOException("the journal's device is gone");
        pipeline.FailNextWrite(diskGone);
        var inFlight = await harness.EnqueueWithWriteHeld(RecordingOperation.Applying(1));
        var held = new[] { harness.Enqueue(RecordingOperation.Applying(2)), harness.Enqueue(RecordingOperation.Applying(3)) };
        await held[1].Executed.WaitAsync(HangGuard);
        var queued = new[] { harness.Enqueue(RecordingOperation.Applying(4)), harness.Enqueue(RecordingOperation.Applying(5)) };
        pipeline.Writes.Open();

        foreach (var operation in held.Prepend(inFlight).Concat(queued))
        {
            var failure = await Assert.ThrowsAsync<EnvironmentFailedException>(() => operation.Completion.WaitAsync(HangGuard));
            Assert.Same(pipeline.Failure, failure);
        }
        Assert.Same(diskGone, pipeline.Failure!.InnerException);
        Assert.Equal(0, queued[0].Executions + queued[1].Executions);
        // Only what was durable before the failure was published; both transactions the merger held were discarded.
        Assert.Equal("1:0", pipeline.PublishedSummary);
        var events = pipeline.Events;
        int failed = events.FindIndex(e => e.Step == MergerStep.FailWrite);
        Assert.Equal([1, 2], events.Skip(failed).Where(e => e.Step == MergerStep.Discard).Select(e => e.Slot).Order());

        // The environment has failed: a later operation fails too, without a chain (EnterWrites throws).
        await pipeline.LeftAfterFailure.WaitAsync(HangGuard);
        int entered = pipeline.WritesEntered;
        var later = harness.Enqueue(RecordingOperation.Applying(6));
        var refused = await Assert.ThrowsAsync<EnvironmentFailedException>(() => later.Completion.WaitAsync(HangGuard));
        Assert.Same(diskGone, refused.InnerException);
        Assert.Equal(0, later.Executions);
        Assert.Equal(entered, pipeline.WritesEntered);
        Assert.Equal(entered + 1, pipeline.EnterAttempts);
        Assert.Equal(pipeline.WritesEntered, pipeline.WritesLeft);
    }

    [Fact]
    public async Task A_batch_that_changed_nothing_releases_its_callers_without_a_write()
    {
        await using var harness = new MergerHarness();
        var pipeline = harness.Pipeline;
        var nothing = harness.Enqueue(RecordingOperation.ChangingNothing());
        await nothing.Completion.WaitAsync(HangGuard);

        Assert.Equal(1, nothing.Executions);
        Assert.Contains(pipeline.Events, e => e is { Step: MergerStep.Prepare, TransactionId: 0 });
        Assert.Equal(0, pipeline.Count(MergerStep.Write));
        Assert.Empty(pipeline.Published);

        // The id was not used: the next change commits as transaction 1.
        var change = harness.Enqueue(RecordingOperation.Applying(7));
        await change.Completion.WaitAsync(HangGuard);
        Assert.Equal("1:7", pipeline.PublishedSummary);
    }

    [Fact]
    public async Task A_full_queue_refuses_an_enqueue_and_a_wait_for_room_times_out()
    {
        // One value per transaction: with one write in flight and the next batch full, the merger takes nothing more.
        await using var harness = new MergerHarness(maxQueuedOperations: 2, maxTransactionPages: 1, queueTimeout: TimeSpan.FromMilliseconds(50));
        var pipeline = harness.Pipeline;
        var inFlight = await harness.EnqueueWithWriteHeld(RecordingOperation.Applying(1));
        var nextBatch = harness.Enqueue(RecordingOperation.Applying(2));
        await nextBatch.Executed.WaitAsync(HangGuard);
        var queued = new[] { harness.Enqueue(RecordingOperation.Applying(3)), harness.Enqueue(RecordingOperation.Applying(4)) };

        var refused = RecordingOperation.Applying(5);
        Assert.False(harness.Queue.TryEnqueue(refused, CancellationToken.None));
        await Assert.ThrowsAsync<MergerQueueFullException>(() => harness.Queue.WaitForRoomAsync(refused, CancellationToken.None).AsTask().WaitAsync(HangGuard));

        pipeline.Writes.Open();
        await Task.WhenAll(queued.Prepend(nextBatch).Prepend(inFlight).Select(o => o.Completion)).WaitAsync(HangGuard);
        Assert.Equal([1, 2, 3, 4], pipeline.Published.SelectMany(p => p.Values));
        Assert.Equal(0, refused.Executions);
    }

    [Fact]
    public async Task Stop_commits_everything_queued_before_it_and_refuses_what_comes_after()
    {
        await using var harness = new MergerHarness();
        var pipeline = harness.Pipeline;
        var first = await harness.EnqueueWithWriteHeld(RecordingOperation.Applying(0));
        var operations = Enumerable.Range(1, 5).Select(i => harness.Enqueue(RecordingOperation.Applying(i))).Prepend(first).ToArray();

        var stopping = harness.StopAsync();
        // The first write is held, so stopping cannot have finished draining.
        Assert.False(stopping.IsCompleted);
        pipeline.Writes.Open();
        await stopping.WaitAsync(HangGuard);

        // Published by the time Stop returns (the merger's thread ended after the last publication).
        Assert.Equal(Enumerable.Range(0, 6), pipeline.Published.SelectMany(p => p.Values));
        await Task.WhenAll(operations.Select(o => o.Completion)).WaitAsync(HangGuard);
        Assert.Throws<ObjectDisposedException>(() => harness.Queue.TryEnqueue(RecordingOperation.Applying(6), CancellationToken.None));
        Assert.Equal(pipeline.WritesEntered, pipeline.WritesLeft);
    }

    [Fact]
    public async Task Over_the_scratch_limit_the_merger_lets_the_write_finish_waits_for_scratch_and_opens_on_the_published_state()
    {
        await using var harness = new MergerHarness();
        var pipeline = harness.Pipeline;
        pipeline.ScratchOverLimit = true;
        var operation = harness.Enqueue(RecordingOperation.Applying(1));
        await operation.Completion.WaitAsync(HangGuard);
        await harness.StopAsync().WaitAsync(HangGuard);

        var events = pipeline.Events;
        int waited = events.IndexOf(new MergerEvent(MergerStep.WaitForScratch, 0, 1));
        Assert.True(waited >= 0, "the merger did not wait for scratch memory");
        int published = events.FindIndex(e => e is { Step: MergerStep.Publish, TransactionId: 1 });
        Assert.True(published < waited, "the merger waited for scratch memory with a write in flight");
        // Nothing was in flight after the wait, so the next transaction opened on the published state (1), not on top of another.
        Assert.Equal(MergerStep.OpenOnPublished, events[waited + 1].Step);
        Assert.Equal(1, events[waited + 1].TransactionId);
        Assert.DoesNotContain(events, e => e.Step == MergerStep.OpenOnTopOf);
    }
}
