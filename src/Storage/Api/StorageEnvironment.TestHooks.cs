namespace Cairn;

public sealed partial class StorageEnvironment
{
    /// <summary>What tests reach inside an environment: one object, so the environment carries no test members of its own.</summary>
    internal EnvironmentTestHooks ForTestingPurposesOnly() => new(this);

    /// <summary>Through <see cref="EnvironmentTestHooks.SimulateProcessCrash"/>: every file closed as a killed process leaves them.</summary>
    internal void CloseAsIfKilled()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        _flusher.StopThread();
        ReleaseResources();
    }
}
