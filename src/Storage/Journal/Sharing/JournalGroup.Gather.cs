using System.Diagnostics;

namespace Cairn.Journal.Sharing;

/// <summary>The group's gather at one write in flight (<see cref="WriteGather"/>): the wait and its counters.</summary>
internal sealed partial class JournalGroup
{
    /// <summary>
    /// The most a write waits for released members whatever the write time says (2 ms): above a capped device's write
    /// time, so only a stall (or a test holding a write) reaches it.
    /// </summary>
    private static readonly long MaxGatherTicks = Stopwatch.Frequency / 500;

    /// <summary>
    /// Members released by writes whose next batch was then taken, how many of them were back by then, and how many
    /// writes waited for them (the cohort effect, measured; zeros when the group does not gather).
    /// </summary>
    public (long Released, long Returned, long Waits) Cohorts
    {
        get
        {
            lock (_gate)
                return _gather is null ? (0, 0, 0) : (_gather.Cohorts.Released, _gather.Cohorts.Returned, _gather.Waits);
        }
    }

    /// <summary>
    /// Before a writer takes its batch: at one write in flight, waits (at most the gather's bound) until the members
    /// the last write released have submitted again, so that they go in this write rather than the one after it. Sleeps
    /// on the signal for whole milliseconds and yields the processor for the rest (the members it waits for need it).
    /// Returns whether it waited.
    /// </summary>
    private bool Gather()
    {
        if (_gather is null || _testingHooks?.GatherOff == true)
            return false;
        bool waited = false;
        while (true)
        {
            long wait;
            lock (_gate)
                wait = _closed || _failure is not null ? 0 : _gather.WaitFor(Stopwatch.GetTimestamp(), _pending.Count >= MaxEntriesPerWrite);
            if (wait <= 0)
                return waited;
            waited = true;
            long milliseconds = wait * 1000 / Stopwatch.Frequency;
            if (milliseconds > 0)
            {
                if (_gathered.Wait((int)milliseconds))
                    return true;
            }
            else if (_gathered.IsSet)
                return true;
            else
                Thread.Yield();
        }
    }
}
