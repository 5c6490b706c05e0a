using Cairn.Diagnostics;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    private sealed record Failure(string Operation, Exception Cause);

    private Failure? _failure;

    /// <summary>True once an I/O failure has stopped the environment from accepting writes (see <see cref="EnvironmentFailedException"/>).</summary>
    public bool HasFailed => Volatile.Read(ref _failure) is not null;

    /// <summary>
    /// Latches the environment as failed (the first failure wins and is logged), wakes anyone waiting for
    /// the flusher, and returns the exception to throw.
    /// </summary>
    private EnvironmentFailedException Fail(string operation, Exception cause)
    {
        if (Interlocked.CompareExchange(ref _failure, new Failure(operation, cause), null) is null)
            Log.EnvironmentFailed(_logger, cause, DirectoryPath, operation);
        lock (_progressGate)
            Monitor.PulseAll(_progressGate);
        return FailureException();
    }

    /// <summary>The exception that reports the latched failure (call only once the environment has failed).</summary>
    private EnvironmentFailedException FailureException()
    {
        var failure = Volatile.Read(ref _failure)!;
        return new EnvironmentFailedException(DirectoryPath, failure.Operation, failure.Cause);
    }

    private void ThrowIfFailed()
    {
        if (Volatile.Read(ref _failure) is not null)
            throw FailureException();
    }
}
