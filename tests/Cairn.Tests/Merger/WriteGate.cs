namespace Cairn.Tests.Merger;

/// <summary>
/// Holds the fake pipeline's journal writes while closed, so a test knows exactly what is in flight: the
/// write reached the gate (<see cref="Reached"/>) and nothing is published until <see cref="Open"/>.
/// </summary>
internal sealed class WriteGate
{
    private readonly ManualResetEventSlim _open = new(true);
    private TaskCompletionSource _reached = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Completes when a write waits at the closed gate.</summary>
    public Task Reached => Volatile.Read(ref _reached).Task;

    /// <summary>Closes the gate (call while no write is under way).</summary>
    public void Close()
    {
        Volatile.Write(ref _reached, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));
        _open.Reset();
    }

    public void Open() => _open.Set();

    /// <summary>On the journal writer's thread. A gate left closed fails the write rather than hanging the test run.</summary>
    public void Pass()
    {
        if (_open.IsSet)
            return;
        Volatile.Read(ref _reached).TrySetResult();
        if (!_open.Wait(MergerHarness.HangGuard))
            throw new TimeoutException("The test never opened the write gate.");
    }
}
