using System.Diagnostics;

namespace Cairn.Cluster.Tests.Nemesis;

/// <summary>
/// Waits for a condition. The deadline only turns a hang into a failure: it is minutes, far beyond what the
/// condition needs even on a loaded machine, and no result depends on how soon the condition held.
/// </summary>
internal static class Eventually
{
    public static readonly TimeSpan HangDeadline = TimeSpan.FromMinutes(3);

    public static async Task HoldsAsync(Func<bool> condition, Func<string> whatWasAwaited, TimeSpan? deadline = null)
    {
        var limit = deadline ?? HangDeadline;
        var waited = Stopwatch.StartNew();
        while (!condition())
        {
            if (waited.Elapsed > limit)
                throw new TimeoutException($"Still not true after {limit.TotalSeconds} s: {whatWasAwaited()}");
            await Task.Delay(TimeSpan.FromMilliseconds(20));
        }
    }

    /// <summary>A token that cancels at the hang deadline, for awaits on sockets.</summary>
    public static CancellationToken Deadline() => new CancellationTokenSource(HangDeadline).Token;
}
