using Cairn.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Cairn.Errors;

/// <summary>
/// Whether the environment has failed, and why. An I/O error whose outcome is unknown (a journal write,
/// a flush, a sync) latches it: the first failure wins and is logged, and every later write is refused
/// with the same <see cref="EnvironmentFailedException"/> until a reopen recovers from the journals.
/// </summary>
internal sealed class FailureLatch(string directory, ILogger logger)
{
    private sealed record Failure(string Operation, Exception Cause);

    private Failure? _failure;

    /// <summary>Called once, on the failing thread, after the failure is latched (waiters for the flusher must wake).</summary>
    public event Action? Failed;

    public bool HasFailed => Volatile.Read(ref _failure) is not null;

    /// <summary>Latches the failure (the first one wins and is logged) and returns the exception to throw.</summary>
    public EnvironmentFailedException Fail(string operation, Exception cause)
    {
        if (Interlocked.CompareExchange(ref _failure, new Failure(operation, cause), null) is null)
        {
            Log.EnvironmentFailed(logger, cause, directory, operation);
            Failed?.Invoke();
        }
        return Exception();
    }

    /// <summary>The exception that reports the latched failure (call only once the environment has failed).</summary>
    public EnvironmentFailedException Exception()
    {
        var failure = Volatile.Read(ref _failure)!;
        return new EnvironmentFailedException(directory, failure.Operation, failure.Cause);
    }

    public void ThrowIfFailed()
    {
        if (Volatile.Read(ref _failure) is not null)
            throw Exception();
    }
}
