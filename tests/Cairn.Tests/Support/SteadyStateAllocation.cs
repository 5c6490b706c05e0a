namespace Cairn.Tests.Support;

/// <summary>
/// Bytes a repeatable piece of work allocates on the calling thread in steady state: the fewest of
/// up to <see cref="Attempts"/> attempts, stopping at the first that allocates nothing. Code that
/// allocates per call allocates in every attempt, so a real regression still fails. A one-off
/// allocation of the runtime's (a lazily resolved type, work around a tier-1 method being installed)
/// lands in some attempts only; after such an attempt the next waits a little, so a burst of
/// background tiering work can finish instead of spanning every attempt. Counted per thread: the
/// environment's own background threads allocate and must not count. Allocation tests call this
/// inside a probe that <see cref="IsolatedAllocation"/> runs in a process of its own.
/// </summary>
public static class SteadyStateAllocation
{
    public const int Attempts = 10;
    private static readonly TimeSpan PauseAfterAllocatingAttempt = TimeSpan.FromMilliseconds(50);

    public static long Measure(Action work)
    {
        long fewest = long.MaxValue;
        for (int attempt = 0; attempt < Attempts && fewest > 0; attempt++)
        {
            if (attempt > 0)
                Thread.Sleep(PauseAfterAllocatingAttempt);
            long before = GC.GetAllocatedBytesForCurrentThread();
            work();
            fewest = Math.Min(fewest, GC.GetAllocatedBytesForCurrentThread() - before);
        }
        return fewest;
    }
}
