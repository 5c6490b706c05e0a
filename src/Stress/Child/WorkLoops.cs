using Cairn.Stress.Checking;
using Cairn.Stress.Protocol;
using Cairn.Stress.Workload;

namespace Cairn.Stress.Child;

/// <summary>What the child's threads do until asked to stop: commit, merge, or read and check.</summary>
internal static class WorkLoops
{
    /// <summary>
    /// Between a reader's checks: readers watch, they should not take the writers' cores (with 2 ms, nine readers of
    /// a journal group halved its commits; with 10 ms they cost no measurable throughput).
    /// </summary>
    private static readonly TimeSpan ReaderPause = TimeSpan.FromMilliseconds(10);

    /// <summary>A reader that keeps finding the same broken state reports it this many times, then stops.</summary>
    private const int MaxViolationsPerReader = 5;

    /// <summary>A <c>BeginWrite</c> writer: one workload transaction per commit, acknowledged once <c>Commit</c> returned.</summary>
    public static void Commit(StorageEnvironment env, int index, StressWorkload workload, StopRequest stop, ChildOutput output)
    {
        while (!stop.IsRequested)
        {
            long i;
            using (var tx = env.BeginWrite())
            {
                i = workload.ApplyNext(tx);
                tx.Commit();
            }
            // The acknowledgement: once this line is out, the parent may count transaction i as durable.
            output.Say(ChildLines.Ack(index, i));
        }
    }

    /// <summary>A merger caller: each operation applies the next workload transaction (numbered inside the merged transaction).</summary>
    public static async Task MergeAsync(StorageEnvironment env, int index, StressWorkload workload, StopRequest stop, ChildOutput output)
    {
        while (!stop.IsRequested)
        {
            long i = await env.WriteAsync(workload, static (tx, w) => w.ApplyNext(tx));
            output.Say(ChildLines.Ack(index, i));
        }
    }

    /// <summary>A reader: checks snapshot after snapshot and reports what breaks an invariant (a throw included).</summary>
    public static void Read(StorageEnvironment env, int index, StressWorkload workload, StopRequest stop, ChildOutput output)
    {
        int reported = 0;
        while (!stop.IsRequested && reported < MaxViolationsPerReader)
        {
            string? problem;
            try
            {
                using var tx = env.BeginRead();
                problem = SnapshotInvariants.Check(tx, workload);
            }
            catch (Exception e)
            {
                problem = $"the reader threw {e.GetType().Name}: {e.Message}";
            }
            if (problem is not null)
            {
                output.Say(ChildLines.Violation(index, problem));
                reported++;
            }
            Thread.Sleep(ReaderPause);
        }
    }
}
