using Cairn.Merger;

namespace Cairn.Tests.Merger;

/// <summary>
/// A caller's operation for the component tests: applies a value to the fake transaction (or nothing, or
/// throws after applying it), counts its executions and completes a task. Not pooled: each is used once,
/// so its token stays 0 and the queue's stale-entry check never applies.
/// </summary>
internal sealed class RecordingOperation : MergedOperation<FakeTransaction>
{
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _executed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Action<FakeTransaction> _body;
    private int _executions;

    private RecordingOperation(Action<FakeTransaction> body) => _body = body;

    public static RecordingOperation Applying(int value) => new(tx => tx.Apply(value));

    /// <summary>Applies <paramref name="value"/>, then throws: a partial change the merger must drop.</summary>
    public static RecordingOperation Throwing(int value, Exception error) => new(tx =>
    {
        tx.Apply(value);
        throw error;
    });

    public static RecordingOperation ChangingNothing() => new(_ => { });

    /// <summary>The caller's task: completes when the merger releases (or fails) the operation.</summary>
    public Task Completion => _completion.Task;

    /// <summary>Completes when the merger's thread first runs the operation.</summary>
    public Task Executed => _executed.Task;

    public int Executions => Volatile.Read(ref _executions);

    public override void Execute(FakeTransaction transaction)
    {
        Interlocked.Increment(ref _executions);
        _executed.TrySetResult();
        _body(transaction);
    }

    protected override void SetResult() => _completion.TrySetResult();

    protected override void SetException(Exception error) => _completion.TrySetException(error);
}
