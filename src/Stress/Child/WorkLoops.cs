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
    public static void Commit(StorageEnvironment env, int index, StressWorkload workload, StopRequest stop, ChildOutput output, bool lazy = false)
    {
        if (lazy)
        {
            CommitMixed(env, index, workload, stop, output);
            return;
        }
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

    /// <summary>
    /// A <c>BeginWrite</c> writer mixing lazy and durable commits (three in four lazy, chosen by the transaction's
    /// number): each is acknowledged only once the journal holds it, which a durable commit, the lazy write's time
    /// bound, or this writer's own <c>FlushJournal</c> (after <see cref="StorageSettings.MaxLazyUnacknowledged"/>)
    /// brings about.
    /// </summary>
    private static void CommitMixed(StorageEnvironment env, int index, StressWorkload workload, StopRequest stop, ChildOutput output)
    {
        var unacknowledged = new Queue<(long EngineTransaction, long Workload)>();
        while (!stop.IsRequested)
        {
            long i, engineTransaction;
            using (var tx = env.BeginWrite())
            {
                i = workload.ApplyNext(tx);
                engineTransaction = tx.TransactionId + 1; // every workload transaction changes something
                tx.Commit(i % 4 == 0 ? CommitMode.Durable : CommitMode.Lazy);
            }
            unacknowledged.Enqueue((engineTransaction, i));
            if (unacknowledged.Count >= StorageSettings.MaxLazyUnacknowledged)
                env.FlushJournal();
            Acknowledge(env.LastDurableTransactionId);
        }
        // A clean stop owes every transaction: the last lazy ones are made durable and acknowledged too.
        env.FlushJournal();
        Acknowledge(env.LastDurableTransactionId);

        void Acknowledge(long durable)
        {
            while (unacknowledged.TryPeek(out var next) && next.EngineTransaction <= durable)
                output.Say(ChildLines.Ack(index, unacknowledged.Dequeue().Workload));
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
