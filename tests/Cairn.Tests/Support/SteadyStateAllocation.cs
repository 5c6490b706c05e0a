namespace Cairn.Tests.Support;

/// <summary>
/// Bytes a repeatable piece of work allocates on the calling thread in steady state: the fewest of
/// several attempts. Code that allocates per call allocates in every attempt, so a real regression
/// still fails; a one-off allocation of the runtime's (a tier-1 method installed mid-measurement on a
/// loaded machine, a lazily resolved type) lands in one attempt and cannot fail the test by chance.
/// </summary>
public static class SteadyStateAllocation
{
    public const int Attempts = 5;

    public static long Measure(Action work)
    {
        long fewest = long.MaxValue;
        for (int attempt = 0; attempt < Attempts && fewest > 0; attempt++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            work();
            fewest = Math.Min(fewest, GC.GetAllocatedBytesForCurrentThread() - before);
        }
        return fewest;
    }
}
