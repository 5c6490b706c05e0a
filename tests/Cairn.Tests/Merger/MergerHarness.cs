using Cairn.Diagnostics;
using Cairn.Merger;

namespace Cairn.Tests.Merger;

/// <summary>A <see cref="TransactionMerger{T}"/> over a <see cref="FakeMergerPipeline"/>, with bounds a test picks.</summary>
internal sealed class MergerHarness : IAsyncDisposable
{
    /// <summary>Only a guard against a hang: no test waits this long unless something is broken.</summary>
    public static readonly TimeSpan HangGuard = TimeSpan.FromSeconds(30);

    /// <param name="maxTransactionPages">The fake counts one page per applied value, so this bounds values per batch.</param>
    public MergerHarness(int maxQueuedOperations = 1024, long maxTransactionPages = 1_000_000, TimeSpan? queueTimeout = null,
        bool writeOnMergerWhenIdle = false)
    {
        // A batch duration no test reaches and no grace for returning callers: batches end by content, never by the clock.
        var settings = new MergerSettings(maxQueuedOperations, queueTimeout ?? HangGuard, maxTransactionPages,
            MaxBatchDuration: TimeSpan.FromHours(1), ReturnGrace: TimeSpan.Zero, writeOnMergerWhenIdle);
        Merger = new TransactionMerger<FakeTransaction>(Pipeline, settings, new MergerStatistics());
    }

    public FakeMergerPipeline Pipeline { get; } = new();

    public TransactionMerger<FakeTransaction> Merger { get; }

    public MergerQueue<FakeTransaction> Queue => Merger.Queue;

    /// <summary>Queues the operation (the test sized the queue so it has room).</summary>
    public RecordingOperation Enqueue(RecordingOperation operation)
    {
        Assert.True(Queue.TryEnqueue(operation, CancellationToken.None), "the merger's queue was full");
        return operation;
    }

    /// <summary>
    /// Closes the write gate, queues the operation and returns once its transaction's write waits at the gate:
    /// from then on, what is queued runs in the next transaction, on top of this one, until the gate opens.
    /// </summary>
    public async Task<RecordingOperation> EnqueueWithWriteHeld(RecordingOperation operation)
    {
        Pipeline.Writes.Close();
        Enqueue(operation);
        await Pipeline.Writes.Reached.WaitAsync(HangGuard);
        return operation;
    }

    /// <summary>Stops the merger off the test's thread: Stop joins the merger's thread, which may wait for writes.</summary>
    public Task StopAsync() => Task.Run(Merger.Stop);

    public async ValueTask DisposeAsync()
    {
        Pipeline.Writes.Open();
        await Task.Run(Merger.Dispose).WaitAsync(HangGuard);
    }
}
