using static Cairn.Tests.Merger.MergerHarness;

namespace Cairn.Tests.Merger;

/// <summary>
/// A batch submitted with nothing queued behind it is written on the merger's own thread; one with operations
/// queued is handed to the journal writer, so they run meanwhile. Which thread wrote is what the fake pipeline
/// records; every wait is on a signal (the write gate, a caller's task).
/// </summary>
public sealed class MergerIdleWriteTests
{
    private const string MergerThread = "cairn-merger";
    private const string WriterThread = "cairn-journal-writer";

    [Fact]
    public async Task A_batch_with_nothing_queued_behind_it_is_written_by_the_merger_and_one_with_operations_queued_by_the_writer()
    {
        // One value per transaction, so each of the three operations is its own batch.
        await using var harness = new MergerHarness(maxTransactionPages: 1, writeOnMergerWhenIdle: true);
        var pipeline = harness.Pipeline;
        var first = await harness.EnqueueWithWriteHeld(RecordingOperation.Applying(1));
        Assert.Equal([MergerThread], pipeline.WriteThreads);

        // The merger itself waits in the write: these stay queued, unexecuted, until it returns.
        var second = harness.Enqueue(RecordingOperation.Applying(2));
        var third = harness.Enqueue(RecordingOperation.Applying(3));
        Assert.Equal(0, second.Executions + third.Executions);

        pipeline.Writes.Open();
        await Task.WhenAll(first.Completion, second.Completion, third.Completion).WaitAsync(HangGuard);

        // The second batch was submitted with the third queued (handed over); the third with nothing behind it.
        Assert.Equal([MergerThread, WriterThread, MergerThread], pipeline.WriteThreads);
        Assert.Equal("1:1 2:2 3:3", pipeline.PublishedSummary);
    }

    [Fact]
    public async Task A_failed_write_on_the_merger_thread_fails_its_caller_and_every_later_one()
    {
        await using var harness = new MergerHarness(writeOnMergerWhenIdle: true);
        var pipeline = harness.Pipeline;
        var diskGone = new IOException("the journal's device is gone");
        pipeline.FailNextWrite(diskGone);

        var lost = harness.Enqueue(RecordingOperation.Applying(1));
        var failure = await Assert.ThrowsAsync<EnvironmentFailedException>(() => lost.Completion.WaitAsync(HangGuard));
        Assert.Same(diskGone, failure.InnerException);
        Assert.Equal([MergerThread], pipeline.WriteThreads);
        Assert.Empty(pipeline.Published);

        await pipeline.LeftAfterFailure.WaitAsync(HangGuard);
        var later = harness.Enqueue(RecordingOperation.Applying(2));
        var refused = await Assert.ThrowsAsync<EnvironmentFailedException>(() => later.Completion.WaitAsync(HangGuard));
        Assert.Same(diskGone, refused.InnerException);
        Assert.Equal(0, later.Executions);
        Assert.Equal(pipeline.WritesEntered, pipeline.WritesLeft);
    }
}
